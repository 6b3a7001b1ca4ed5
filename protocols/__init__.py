"""Adapters between the outside world and the engine: the `antichess` command line, and
(in later work) the UCI and CECP protocol loops.  No rules live here."""
