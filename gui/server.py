"""The web server: the page, its files, and the JSON and WebSocket API (docs/gui.md).

`GuiServer` holds the games (a `Lobby`), one `ComputerPlayer` per room that has a computer
side, the open WebSockets of each room and the flag-fall timers; `GuiServer.app()` is the
aiohttp application.  The server owns every game: a browser sends moves and requests,
the rules core checks them, and the server pushes the new state to every page that shows
the game.  Requests are authorised by seat tokens, which the server makes and the
creator's or joiner's browser keeps.  No request names a path on the server: uploads are
read from the request body (at most `MAX_UPLOAD` bytes) and downloads are made in memory.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
from importlib import resources

from aiohttp import WSMsgType, web

from .games import SIDES, Lobby, RequestError, Room, Settings
from .players import ComputerPlayer

MAX_UPLOAD = 2 * 1024 * 1024 + 4096  # the course reader's limit, plus room for the request
MAX_JSON = 64 * 1024
STATIC = resources.files("gui") / "static"
CONTENT_TYPES = {".html": "text/html", ".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml"}


def _tokens(request: web.Request, body: dict | None = None) -> list[str]:
    """The seat tokens a request carries: the X-Seat-Tokens header (comma-separated), a
    `tokens` query parameter, or a `tokens` list in its JSON body."""
    found = []
    for text in (request.headers.get("X-Seat-Tokens", ""), request.query.get("tokens", "")):
        found += [t.strip() for t in text.split(",") if t.strip()]
    if body and isinstance(body.get("tokens"), list):
        found += [t for t in body["tokens"] if isinstance(t, str)]
    return found[:4]


class GuiServer:
    """The games of one `antichess gui` process and the web application that serves them."""

    def __init__(self, workers: int | None = None, game_limit: int = 500):
        self.lobby = Lobby(game_limit)
        self.executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=workers or max(2, min(8, os.cpu_count() or 2)), thread_name_prefix="gui-search")
        self.computers: dict[str, ComputerPlayer] = {}
        self.sockets: dict[str, set] = {}
        self.flags: dict[str, asyncio.TimerHandle] = {}
        self.loop: asyncio.AbstractEventLoop | None = None

    # -- the application ------------------------------------------------------------------

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_UPLOAD)
        app.add_routes([
            web.get("/", self.page), web.get("/game/{id}", self.page),
            web.get("/static/{name}", self.static),
            web.get("/api/variants", self.variants),
            web.post("/api/games", self.create),
            web.get("/api/games/{id}", self.show),
            web.post("/api/games/{id}/join", self.join),
            web.post("/api/games/{id}/move", self.move),
            web.post("/api/games/{id}/pause", self.pause),
            web.post("/api/games/{id}/end", self.end),
            web.post("/api/games/{id}/load", self.load),
            web.get("/api/games/{id}/game.xml", self.save),
            web.get("/api/games/{id}/game.pgn", self.pgn),
            web.get("/api/games/{id}/ws", self.websocket),
        ])
        app.on_startup.append(self._startup)
        app.on_shutdown.append(self._shutdown)
        return app

    async def _startup(self, app) -> None:
        self.loop = asyncio.get_running_loop()

    async def _shutdown(self, app) -> None:
        for player in self.computers.values():
            player.stop()
        for handle in self.flags.values():
            handle.cancel()
        for sockets in list(self.sockets.values()):
            for ws in list(sockets):
                await ws.close()
        self.executor.shutdown(wait=False, cancel_futures=True)

    # -- files ---------------------------------------------------------------------------

    async def page(self, request: web.Request) -> web.Response:
        return web.Response(body=(STATIC / "index.html").read_bytes(), content_type="text/html",
                            headers={"Cache-Control": "no-cache"})

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        known = {entry.name for entry in STATIC.iterdir()}
        if name not in known or name.startswith("."):
            raise web.HTTPNotFound()
        suffix = os.path.splitext(name)[1]
        return web.Response(body=(STATIC / name).read_bytes(),
                            content_type=CONTENT_TYPES.get(suffix, "application/octet-stream"),
                            headers={"Cache-Control": "no-cache"})

    # -- the API -------------------------------------------------------------------------

    @staticmethod
    def _error(error: RequestError) -> web.Response:
        return web.json_response({"error": str(error)}, status=error.status)

    async def _json(self, request: web.Request) -> dict:
        if request.content_length is not None and request.content_length > MAX_JSON:
            raise RequestError("request too large", 413)
        raw = await request.content.read(MAX_JSON + 1)
        if len(raw) > MAX_JSON:
            raise RequestError("request too large", 413)
        if not raw.strip():
            return {}
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise RequestError("the request is not JSON") from None
        if not isinstance(data, dict):
            raise RequestError("the request must be a JSON object")
        return data

    async def variants(self, request: web.Request) -> web.Response:
        from engine import RULE_SETS, get_rule_set

        items = []
        for name in RULE_SETS:
            rules = get_rule_set(name)
            items.append({"name": name, "summary": rules.description, "promotion": rules.promotion,
                          "anti_kings": bool(rules.anti_kings)})
        return web.json_response({"variants": items})

    def _room(self, request: web.Request) -> Room:
        return self.lobby.get(request.match_info["id"])

    def _state(self, room: Room, tokens) -> dict:
        state = room.state()
        state["you"] = room.seats_of(tokens)
        state["controls"] = room.controls(tokens)
        return state

    async def create(self, request: web.Request) -> web.Response:
        try:
            settings = Settings.parse(await self._json(request))
            room = self.lobby.create(settings)
        except RequestError as error:
            return self._error(error)
        tokens = {"owner": room.owner}
        for side in SIDES:
            if room.tokens[side] is not None and room.claimed[side]:
                tokens[side] = room.tokens[side]
        self.changed(room)
        return web.json_response({"id": room.id, "tokens": tokens, "url": f"/game/{room.id}",
                                  "state": self._state(room, list(tokens.values()))})

    async def show(self, request: web.Request) -> web.Response:
        try:
            room = self._room(request)
        except RequestError as error:
            return self._error(error)
        return web.json_response(self._state(room, _tokens(request)))

    async def join(self, request: web.Request) -> web.Response:
        """Take the free human seat, or watch when there is none."""
        try:
            room = self._room(request)
        except RequestError as error:
            return self._error(error)
        side = room.take_free_seat()
        tokens = {side: room.tokens[side]} if side else {}
        if side:
            self.changed(room)
        return web.json_response({"id": room.id, "seat": side, "tokens": tokens,
                                  "state": self._state(room, list(tokens.values()))})

    async def move(self, request: web.Request) -> web.Response:
        try:
            room = self._room(request)
            body = await self._json(request)
            tokens = _tokens(request, body)
            room.play(body.get("move"), tokens)
        except RequestError as error:
            return self._error(error)
        self.changed(room)
        return web.json_response(self._state(room, tokens))

    async def pause(self, request: web.Request) -> web.Response:
        try:
            room = self._room(request)
            body = await self._json(request)
            tokens = _tokens(request, body)
            if not room.controls(tokens):
                raise RequestError("only a player of this game may pause it", 403)
            paused = body.get("paused", True)
            if not isinstance(paused, bool):
                raise RequestError("paused must be true or false")
            room.check_flag()
            room.set_paused(paused)
        except RequestError as error:
            return self._error(error)
        self.changed(room)
        return web.json_response(self._state(room, tokens))

    async def end(self, request: web.Request) -> web.Response:
        try:
            room = self._room(request)
            body = await self._json(request)
            tokens = _tokens(request, body)
            if not room.controls(tokens):
                raise RequestError("only a player of this game may end it", 403)
            if not room.check_flag():
                room.end()
        except RequestError as error:
            return self._error(error)
        self.changed(room)
        return web.json_response(self._state(room, tokens))

    async def load(self, request: web.Request) -> web.Response:
        """Replace the game by the course file in the request body (raw bytes)."""
        try:
            room = self._room(request)
            tokens = _tokens(request)
            if not room.controls(tokens):
                raise RequestError("only a player of this game may load a game into it", 403)
            if request.content_length is not None and request.content_length > MAX_UPLOAD:
                raise RequestError("Not a valid antichess game file: the file is too large", 413)
            data = await request.content.read(MAX_UPLOAD + 1)
            if len(data) > MAX_UPLOAD:
                raise RequestError("Not a valid antichess game file: the file is too large", 413)
            room.load(data)
        except RequestError as error:
            return self._error(error)
        self.changed(room)
        return web.json_response(self._state(room, tokens))

    async def save(self, request: web.Request) -> web.Response:
        try:
            room = self._room(request)
        except RequestError as error:
            return self._error(error)
        return web.Response(text=room.course_xml(), content_type="application/xml", headers={
            "Content-Disposition": f'attachment; filename="antichess-{room.id}.xml"'})

    async def pgn(self, request: web.Request) -> web.Response:
        try:
            room = self._room(request)
        except RequestError as error:
            return self._error(error)
        return web.Response(text=room.pgn(), content_type="application/x-chess-pgn", headers={
            "Content-Disposition": f'attachment; filename="antichess-{room.id}.pgn"'})

    # -- live updates -----------------------------------------------------------------------

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        """Pushes the game's state on every change; takes moves: {"type": "move", "move": "e2e4"}."""
        try:
            room = self._room(request)
        except RequestError as error:
            return self._error(error)
        tokens = _tokens(request)
        ws = web.WebSocketResponse(heartbeat=20, max_msg_size=MAX_JSON)
        await ws.prepare(request)
        ws.gui_tokens = tokens
        self.sockets.setdefault(room.id, set()).add(ws)
        room.viewers += 1
        room.ever_viewed = True
        if room.idle_paused:
            room.set_paused(False)
            self.changed(room)
        await ws.send_json({"type": "state", "state": self._state(room, tokens)})
        try:
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    continue
                await self._ws_message(room, ws, message.data)
        finally:
            self.sockets.get(room.id, set()).discard(ws)
            room.viewers -= 1
            if room.viewers == 0:
                self._idle(room)
        return ws

    async def _ws_message(self, room: Room, ws, text: str) -> None:
        try:
            data = json.loads(text)
        except ValueError:
            await ws.send_json({"type": "error", "message": "not JSON"})
            return
        if not isinstance(data, dict) or data.get("type") != "move":
            await ws.send_json({"type": "error", "message": "unknown request"})
            return
        try:
            room.play(data.get("move"), ws.gui_tokens)
        except RequestError as error:
            await ws.send_json({"type": "error", "message": str(error)})
            return
        self.changed(room)

    def _idle(self, room: Room) -> None:
        """No page shows `room` any more: a computer stops thinking, and a game with a
        computer player pauses until a page shows it again."""
        player = self.computers.get(room.id)
        if player is not None and room.ending is None and not room.paused:
            room.set_paused(True)
            room.idle_paused = True
            player.stop()
            self.changed(room)

    def changed(self, room: Room) -> None:
        """After any change: push the state to every page, set the flag-fall timer, and
        start or stop the computer."""
        player = self.computers.get(room.id)
        if player is None and "computer" in room.players.values():
            player = self.computers[room.id] = ComputerPlayer(room, self.executor)
        if player is not None:
            if room.computer_to_move():
                if self.loop is not None and player.version != room.version:
                    player.stop()
                    player.start(self.loop, self._computer_moved)
            else:
                player.stop()
        self._set_flag(room)
        self._broadcast(room)

    def _computer_moved(self, room: Room, played: bool) -> None:
        self.changed(room)

    def _set_flag(self, room: Room) -> None:
        handle = self.flags.pop(room.id, None)
        if handle is not None:
            handle.cancel()
        delay = room.flag_delay()
        if delay is None or self.loop is None:
            return

        def fall():
            self.flags.pop(room.id, None)
            if room.check_flag():
                self.changed(room)
            else:
                self._set_flag(room)

        self.flags[room.id] = self.loop.call_later(delay + 0.002, fall)

    def _broadcast(self, room: Room) -> None:
        sockets = self.sockets.get(room.id)
        if not sockets:
            return
        state = room.state()
        for ws in list(sockets):
            if ws.closed:
                continue
            message = dict(state, you=room.seats_of(ws.gui_tokens), controls=room.controls(ws.gui_tokens))
            asyncio.ensure_future(self._send(ws, {"type": "state", "state": message}))

    @staticmethod
    async def _send(ws, data) -> None:
        try:
            await ws.send_json(data)
        except (ConnectionError, RuntimeError):
            pass


def run(host: str = "127.0.0.1", port: int = 8170, open_browser: bool = True, ready=None) -> int:
    """Serve until Ctrl-C; open the default browser on the page unless told not to."""
    server = GuiServer()
    app = server.app()

    async def serve():
        runner = web.AppRunner(app, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        await site.start()
        shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
        url = f"http://{shown}:{port}/"
        print(f"antichess gui: serving on {url} (Ctrl-C stops it)", flush=True)
        if host in ("0.0.0.0", "::", ""):
            print("antichess gui: listening on every network interface: other machines can reach it", flush=True)
        if open_browser:
            import webbrowser

            await asyncio.get_running_loop().run_in_executor(None, webbrowser.open, url)
        if ready is not None:
            ready(url)
        try:
            await asyncio.Event().wait()
        finally:
            await runner.cleanup()

    asyncio.run(serve())
    return 0
