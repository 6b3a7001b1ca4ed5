"""Endgame tables of antichess and suicide."""
