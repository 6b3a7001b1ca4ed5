"""The browser application: `antichess gui` serves a board page, its JSON and WebSocket
API, and plays the computer side with the engine.

An adapter like `protocols` and `textui`: it imports `engine` (the facade) and nothing of
the other adapters, and has no rules of its own.  `gui.games` holds one game in time
(clocks, seats, history, pause, end); `gui.players` runs the engine's search off the event
loop; `gui.server` is the aiohttp application; `gui/static/` is the page (HTML, CSS, the
JavaScript board and the project's own SVG pieces).  docs/gui.md describes it.
"""

from .server import GuiServer, run

__all__ = ["GuiServer", "run"]
