"""The numba plumbing: the cache and its key (`cache`), how kernels are compiled or run as
plain Python (`modes`), and the LLVM intrinsics they call (`intrinsics`).  The only place
that imports numba."""
