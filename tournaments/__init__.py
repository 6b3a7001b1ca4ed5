"""Engine-vs-engine tournaments refereed with the project's own rules (see docs/tournaments.md)."""
