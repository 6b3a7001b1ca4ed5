"""The search: the transposition table (`tt`), the kernels' state bundles (`state`),
static evaluation (`static`, `evaluation`, `network`), move ordering (`ordering`),
alpha-beta (`alphabeta`), proof-number search (`proof`), limits and reported information
(`limits`), score conversion for the protocols (`scores`), time management (`timing`),
Lazy SMP helper threads (`threads`) and the `Searcher` that drives them (`searcher`)."""
