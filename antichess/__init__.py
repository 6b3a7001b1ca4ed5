"""The `antichess` command line (`antichess.cli.main`, also `python -m antichess`).

This is the one package that ties the others together: it starts the protocol loops
(`protocols`), the TextUI (`textui`) and the tournament runner (`tournaments`), which
import nothing from the project but `engine` (tests/test_import_graph.py checks this).
"""
