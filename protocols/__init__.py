"""Adapters between the outside world and the engine: the UCI, CECP (xboard) and HackerRank
protocol loops.  No rules live here, and nothing but `engine` is imported from the project
(the `antichess` command line that starts these loops is the `antichess` package)."""
