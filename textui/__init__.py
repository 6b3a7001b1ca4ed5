"""The MIT 6.170 Antichess TextUI, on the engine's Game facade.

`session.TextUI` runs the commands, `gamefile` reads and writes the course's XML game files
(parsed with defusedxml in `safexml`), `player` chooses the computer's moves within its
clock, `board` draws ShowBoard, and `__main__` is the input loop.  See docs/textui.md.
"""
