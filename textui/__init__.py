"""The MIT 6.170 Antichess TextUI, on the engine's Game facade."""
