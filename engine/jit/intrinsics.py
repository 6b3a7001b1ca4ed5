"""LLVM intrinsics for the kernels: popcount, an atomic load, bit scans, a prefetch, the
network's vectorised row sums, and scratch arrays in a kernel's stack frame.

Each is built once numba is loaded (`intrinsics()`); `engine.jit.modes.native` hands a
kernel module either the intrinsic or, while compilation is deferred, its Python fallback.
"""

from __future__ import annotations

from .cache import load_numba

_INTRINSICS: dict = {}
_STACK_ARRAYS: dict[str, tuple[str, int]] = {}  # intrinsic name: (dtype name, length)


def register_stack_array(dtype: str, length: int) -> str:
    """The intrinsic name of a scratch array of `length` items of `dtype` (see
    `engine.jit.modes.stack_array`), built with the other intrinsics."""
    name = f"stack_{dtype}_{int(length)}"
    _STACK_ARRAYS[name] = (dtype, int(length))
    return name


def _stack_array_intrinsic(dtype: str, length: int):
    """The numba intrinsic behind `stack_array`: an alloca in the caller's entry block,
    wrapped as an array without a MemInfo."""
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic
    from numba.np.arrayobj import populate_array

    item_type = getattr(types, dtype)
    array_type = types.Array(item_type, 1, "C")

    @intrinsic
    def scratch(typingctx):
        def codegen(context, builder, signature, args):
            item = context.get_data_type(item_type)
            size = context.get_constant(types.intp, length)
            itemsize = context.get_constant(types.intp, context.get_abi_sizeof(item))
            array = context.make_array(array_type)(context, builder)
            populate_array(array, data=cgutils.alloca_once(builder, item, size=size), shape=[size],
                           strides=[itemsize], itemsize=itemsize, meminfo=None)
            return array._getvalue()

        return array_type(), codegen

    return scratch


def intrinsics() -> dict:
    """The LLVM intrinsics the kernels use (and the scratch arrays of `stack_array`), built
    once numba is imported."""
    if not _INTRINSICS:
        _INTRINSICS.update(_bit_intrinsics())
    for name, (dtype, length) in _STACK_ARRAYS.items():
        if name not in _INTRINSICS:
            _INTRINSICS[name] = _stack_array_intrinsic(dtype, length)
    return _INTRINSICS


def _bit_intrinsics() -> dict:
    """popcount, atomic_load, trailing_zeros, leading_zeros, prefetch, add_rows_32, add_rows_64 and add_rows_128."""
    load_numba()
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
    from numba.extending import intrinsic

    @intrinsic
    def popcount(typingctx, bitboard):
        """Number of set bits of a uint64 (LLVM ctpop)."""
        sig = types.uint64(types.uint64)

        def codegen(context, builder, signature, args):
            function = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
            return builder.call(function, [args[0]])

        return sig, codegen

    @intrinsic
    def atomic_load(typingctx, array, index):
        """array[index] read with an atomic (monotonic) load, never cached in a register."""
        sig = types.int64(array, index)

        def codegen(context, builder, signature, args):
            array_type = signature.args[0]
            array_value = context.make_array(array_type)(context, builder, args[0])
            pointer = cgutils.get_item_pointer(context, builder, array_type, array_value, [args[1]],
                                               wraparound=False)
            return builder.load_atomic(pointer, "monotonic", 8)

        return sig, codegen

    @intrinsic
    def prefetch(typingctx, array, index):
        """Ask the processor to bring array[index] into its caches (llvm.prefetch, for
        reading, keep in all levels); no effect on any value."""
        sig = types.void(array, index)

        def codegen(context, builder, signature, args):
            array_type = signature.args[0]
            array_value = context.make_array(array_type)(context, builder, args[0])
            pointer = cgutils.get_item_pointer(context, builder, array_type, array_value, [args[1]],
                                               wraparound=False)
            bytes_pointer = ir.IntType(8).as_pointer()
            flag = ir.IntType(32)
            function = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), [bytes_pointer, flag, flag, flag]),
                "llvm.prefetch.p0")
            builder.call(function, [builder.bitcast(pointer, bytes_pointer), ir.Constant(flag, 0),
                                    ir.Constant(flag, 3), ir.Constant(flag, 1)])
            return context.get_dummy_value()

        return sig, codegen

    return dict(popcount=popcount, atomic_load=atomic_load, trailing_zeros=trailing_zeros,
                leading_zeros=leading_zeros, prefetch=prefetch, add_rows_32=_add_rows_intrinsic(32),
                add_rows_64=_add_rows_intrinsic(64), add_rows_128=_add_rows_intrinsic(128))


def _add_rows_intrinsic(width: int):
    """add_rows(matrix, rows, n, out): out[:width] += matrix[rows[i], :width] for i < n, in that
    order, each column summed by saturating int16 additions (a sum past 32,767 or -32,768
    stays there), with the `width` sums held in 16-lane vector registers across the rows.
    matrix: int16[:, :] with unit column stride and at least `width` columns; rows: int64[:]
    of valid row indices; out: int16[:] of at least `width` items.  No bounds are checked;
    any other item type is a typing error."""
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    lanes = 16
    assert width % lanes == 0

    @intrinsic
    def add_rows(typingctx, matrix, rows, n, out):
        if (not isinstance(matrix, types.Array) or matrix.dtype != types.int16 or not isinstance(out, types.Array)
                or out.dtype != types.int16):
            return None
        sig = types.void(matrix, rows, types.int64, out)

        def codegen(context, builder, signature, args):
            matrix_type, rows_type, _, out_type = signature.args
            matrix_value = context.make_array(matrix_type)(context, builder, args[0])
            rows_value = context.make_array(rows_type)(context, builder, args[1])
            out_value = context.make_array(out_type)(context, builder, args[3])
            count = args[2]
            word = ir.IntType(64)
            vector = ir.VectorType(ir.IntType(16), lanes)
            saturating_add = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(vector, [vector, vector]), f"llvm.sadd.sat.v{lanes}i16")
            bytes_pointer = ir.IntType(8).as_pointer()
            row_stride = cgutils.unpack_tuple(builder, matrix_value.strides, 2)[0]
            out_vectors = builder.bitcast(out_value.data, vector.as_pointer())
            chunks = width // lanes
            start = [builder.load(builder.gep(out_vectors, [ir.Constant(word, k)]), align=2)
                     for k in range(chunks)]
            before = builder.basic_block
            test_block = builder.append_basic_block("rows.test")
            body_block = builder.append_basic_block("rows.body")
            done_block = builder.append_basic_block("rows.done")
            builder.branch(test_block)
            builder.position_at_end(test_block)
            index = builder.phi(word)
            index.add_incoming(ir.Constant(word, 0), before)
            sums = []
            for k in range(chunks):
                phi = builder.phi(vector)
                phi.add_incoming(start[k], before)
                sums.append(phi)
            builder.cbranch(builder.icmp_signed("<", index, count), body_block, done_block)
            builder.position_at_end(body_block)
            row = builder.load(builder.gep(rows_value.data, [index]))
            row_start = builder.gep(builder.bitcast(matrix_value.data, bytes_pointer),
                                    [builder.mul(row, row_stride)])
            row_vectors = builder.bitcast(row_start, vector.as_pointer())
            for k in range(chunks):
                item = builder.load(builder.gep(row_vectors, [ir.Constant(word, k)]), align=2)
                sums[k].add_incoming(builder.call(saturating_add, [sums[k], item]), body_block)
            index.add_incoming(builder.add(index, ir.Constant(word, 1)), body_block)
            builder.branch(test_block)
            builder.position_at_end(done_block)
            for k in range(chunks):
                builder.store(sums[k], builder.gep(out_vectors, [ir.Constant(word, k)]), align=2)
            return context.get_dummy_value()

        return sig, codegen

    return add_rows
