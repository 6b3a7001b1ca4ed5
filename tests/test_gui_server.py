"""The browser application's server (gui/), through aiohttp's test client: moves checked by
the rules core, seat tokens, clocks and flag fall, pause, End Game, computer players,
save/load of course files (hostile uploads included), PGN, live updates and reconnects."""

from __future__ import annotations

import asyncio
import time

import pytest

pytest.importorskip("aiohttp", reason="aiohttp is not installed (pip install -e .)")

from aiohttp.test_utils import TestClient, TestServer  # noqa: E402

from gui.server import GuiServer  # noqa: E402


def run(test):
    """Run `test(client, server)` against a fresh server."""

    async def main():
        server = GuiServer(workers=2)
        async with TestClient(TestServer(server.app())) as client:
            await test(client, server)

    asyncio.run(main())


async def create(client, **settings):
    response = await client.post("/api/games", json=settings)
    assert response.status == 200, await response.text()
    return await response.json()


def headers(*tokens):
    return {"X-Seat-Tokens": ",".join(tokens)}


async def move(client, game, text, *tokens):
    return await client.post(f"/api/games/{game['id']}/move", json={"move": text}, headers=headers(*tokens))


async def state(client, game, *tokens):
    response = await client.get(f"/api/games/{game['id']}", headers=headers(*tokens))
    assert response.status == 200
    return await response.json()


async def wait_for(check, seconds=10.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        result = await check()
        if result:
            return result
        await asyncio.sleep(0.02)
    raise AssertionError("timed out")


def test_new_game_state_and_defaults():
    async def test(client, server):
        game = await create(client, variant="mit-antichess", white="human", black="human")
        view = game["state"]
        assert set(game["tokens"]) == {"owner", "white", "black"}
        assert view["turn"] == "white" and view["board"]["e1"] == "K" and view["board"]["d8"] == "q"
        assert "e2e4" in view["legal"] and len(view["legal"]) == 20
        assert view["clocks"] == {"white": None, "black": None}
        assert view["status"].startswith("White to move") and view["you"] == ["white", "black"]
        assert "owner" not in str(await state(client, game))  # no secret in a public state
        response = await client.post("/api/games", json={"variant": "nonsense"})
        assert response.status == 400 and "unknown variant" in (await response.json())["error"]
        response = await client.post("/api/games", data=b"{not json")
        assert response.status == 400
        response = await client.post("/api/games", json={"white": "alien"})
        assert response.status == 400
        anti = await create(client, antikings=True)
        assert anti["state"]["variant"] == "antiking-antichess"
        assert anti["state"]["board"]["d6"] == "A" and anti["state"]["board"]["d3"] == "a"

    run(test)


def test_legal_and_illegal_moves_and_seat_tokens():
    async def test(client, server):
        game = await create(client, variant="mit-antichess", white="human", black="human")
        white, black = game["tokens"]["white"], game["tokens"]["black"]
        response = await move(client, game, "e2-e4", white)
        assert response.status == 200
        view = await response.json()
        assert view["board"]["e4"] == "P" and view["history"] == [{"side": "white", "move": "e2-e4", "pass": False}]
        assert view["last_move"] == ["e2", "e4"]
        before = (await state(client, game))["fen"]
        # the white token cannot move black's pieces; no token, a made-up token, the owner's neither
        for tokens in ([white], [], ["x" * 24], [game["tokens"]["owner"]]):
            response = await move(client, game, "d7d5", *tokens)
            assert response.status == 403, tokens
        # a token stolen from another game is refused too
        other = await create(client, white="human", black="human")
        response = await move(client, game, "d7d5", other["tokens"]["black"])
        assert response.status == 403
        assert (await state(client, game))["fen"] == before
        assert (await move(client, game, "d7d5", black)).status == 200
        # compulsory capture: a quiet move is illegal now, and nothing changes
        before = await state(client, game)
        response = await move(client, game, "a2a3", white)
        assert response.status == 400 and "illegal" in (await response.json())["error"]
        for junk in ("", "zz", "e2e4e4e4e4e4e4e4e4e4e4", None, 7):
            response = await client.post(f"/api/games/{game['id']}/move", json={"move": junk},
                                         headers=headers(white))
            assert response.status == 400
        assert (await state(client, game))["fen"] == before["fen"]
        assert (await state(client, game))["legal"] == ["e4d5"]
        assert (await move(client, game, "e4d5", white)).status == 200
        response = await client.get("/api/games/nosuchgame")
        assert response.status == 404

    run(test)


def test_join_free_seat_then_spectators():
    async def test(client, server):
        game = await create(client, white="human", black="human", mine=["white"])
        assert set(game["tokens"]) == {"owner", "white"}
        assert game["state"]["seats"] == {"white": "taken", "black": "free"}
        joined = await (await client.post(f"/api/games/{game['id']}/join")).json()
        assert joined["seat"] == "black" and set(joined["tokens"]) == {"black"}
        watcher = await (await client.post(f"/api/games/{game['id']}/join")).json()
        assert watcher["seat"] is None and watcher["tokens"] == {} and watcher["state"]["you"] == []
        assert (await move(client, game, "e2e3", game["tokens"]["white"])).status == 200
        assert (await move(client, game, "e7e6", game["tokens"]["white"])).status == 403
        assert (await move(client, game, "e7e6", joined["tokens"]["black"])).status == 200

    run(test)


def test_websocket_pushes_moves_and_reconnect_gets_the_game_back():
    async def test(client, server):
        game = await create(client, white="human", black="human", mine=["white"])
        white = game["tokens"]["white"]
        black = (await (await client.post(f"/api/games/{game['id']}/join")).json())["tokens"]["black"]
        path = f"/api/games/{game['id']}/ws"
        ws_white = await client.ws_connect(path + f"?tokens={white}")
        ws_black = await client.ws_connect(path + f"?tokens={black}")
        ws_watch = await client.ws_connect(path)
        first = await ws_black.receive_json(timeout=2)
        assert first["type"] == "state" and first["state"]["you"] == ["black"]
        assert (await ws_white.receive_json(timeout=2))["state"]["you"] == ["white"]
        await ws_watch.receive_json(timeout=2)
        started = time.monotonic()
        await ws_white.send_json({"type": "move", "move": "e2e3"})
        pushed = await ws_black.receive_json(timeout=1)
        assert time.monotonic() - started < 1.0
        assert pushed["state"]["history"][-1]["move"] == "e2-e3" and pushed["state"]["turn"] == "black"
        watched = await ws_watch.receive_json(timeout=1)
        assert watched["state"]["board"]["e3"] == "P" and watched["state"]["you"] == []
        # a spectator and the wrong seat are refused over the socket too
        await ws_watch.send_json({"type": "move", "move": "e7e6"})
        assert "only the black player" in (await ws_watch.receive_json(timeout=1))["message"]
        await ws_white.receive_json(timeout=1)  # white's own echo of e2-e3
        await ws_white.send_json({"type": "move", "move": "e7e6"})
        assert (await ws_white.receive_json(timeout=1))["type"] == "error"
        await ws_black.send_str("not json")
        assert (await ws_black.receive_json(timeout=1))["type"] == "error"
        # black reloads the page: a new socket with the same token gets the whole game back
        await ws_black.close()
        ws_black = await client.ws_connect(path + f"?tokens={black}")
        again = (await ws_black.receive_json(timeout=2))["state"]
        assert again["you"] == ["black"] and [p["move"] for p in again["history"]] == ["e2-e3"]
        await ws_black.send_json({"type": "move", "move": "e7e6"})
        assert (await ws_white.receive_json(timeout=1))["state"]["board"]["e6"] == "p"
        for ws in (ws_white, ws_black, ws_watch):
            await ws.close()

    run(test)


def test_computer_answers_and_new_page_close_stops_it():
    async def test(client, server):
        game = await create(client, white="human", black="computer", level=1, minutes=5)
        white = game["tokens"]["white"]
        assert (await move(client, game, "e2e3", white)).status == 200

        async def answered():
            view = await state(client, game)
            return view if view["turn"] == "white" and len(view["history"]) == 2 else None

        view = await wait_for(answered)
        assert view["history"][1]["side"] == "black" and view["clocks"]["black"] < 300000
        # computer against computer plays on by itself; a page closing pauses it
        auto = await create(client, white="computer", black="computer", level=1)
        ws = await client.ws_connect(f"/api/games/{auto['id']}/ws")

        async def played():
            return len((await state(client, auto))["history"]) >= 4

        await wait_for(played)
        await ws.close()

        async def paused():
            return (await state(client, auto))["paused"]

        await wait_for(paused, 2)
        count = len((await state(client, auto))["history"])
        await asyncio.sleep(0.3)
        assert len((await state(client, auto))["history"]) <= count + 1  # at most a move already made
        ws = await client.ws_connect(f"/api/games/{auto['id']}/ws")
        assert not (await ws.receive_json(timeout=2))["state"]["paused"]
        await ws.close()

    run(test)


def test_clocks_run_and_flag_falls():
    async def test(client, server):
        game = await create(client, white="human", black="human", minutes=1)
        await asyncio.sleep(0.25)
        view = await state(client, game)
        assert 59000 < view["clocks"]["white"] <= 59800 and view["clocks"]["black"] == 60000
        assert view["running"] == "white"
        quick = await create(client, white="human", black="human", white_minutes=0.004, black_minutes=1)
        ws = await client.ws_connect(f"/api/games/{quick['id']}/ws")
        await ws.receive_json(timeout=1)
        fallen = (await ws.receive_json(timeout=2))["state"]  # pushed by the server's own timer
        assert fallen["over"]["winner"] == "black" and fallen["over"]["reason"] == "time"
        assert fallen["clocks"]["white"] == 0 and fallen["running"] is None
        assert (await move(client, quick, "e2e4", quick["tokens"]["white"])).status == 400
        await ws.close()
        one_sided = await create(client, white="human", black="human", white_minutes=2)
        assert one_sided["state"]["clocks"] == {"white": 120000, "black": None}

    run(test)


def test_pause_stops_clocks_and_moves():
    async def test(client, server):
        game = await create(client, white="human", black="human", minutes=1)
        white = game["tokens"]["white"]
        response = await client.post(f"/api/games/{game['id']}/pause", json={"paused": True})
        assert response.status == 403  # no token
        response = await client.post(f"/api/games/{game['id']}/pause", json={"paused": True}, headers=headers(white))
        view = await response.json()
        assert view["paused"] and view["status"] == "Paused" and view["legal"] == [] and view["running"] is None
        left = view["clocks"]["white"]
        await asyncio.sleep(0.2)
        assert (await state(client, game))["clocks"]["white"] == left
        assert (await move(client, game, "e2e4", white)).status == 400
        response = await client.post(f"/api/games/{game['id']}/pause", json={"paused": False},
                                     headers=headers(game["tokens"]["owner"]))
        assert not (await response.json())["paused"]
        assert (await move(client, game, "e2e4", white)).status == 200

    run(test)


def test_end_game_then_save_and_pgn():
    async def test(client, server):
        game = await create(client, variant="antichess", white="human", black="human")
        white, black = game["tokens"]["white"], game["tokens"]["black"]
        for text, token in (("e2e3", white), ("b7b5", black), ("f1b5", white)):
            assert (await move(client, game, text, token)).status == 200
        pgn = await (await client.get(f"/api/games/{game['id']}/game.pgn")).text()
        assert '[Variant "antichess"]' in pgn and "Bxb5" in pgn
        response = await client.post(f"/api/games/{game['id']}/end", headers=headers(black))
        view = await response.json()
        assert view["over"]["reason"] == "ended" and view["status"] == "Game ended"
        assert (await move(client, game, "c8b7", black)).status == 400
        pytest.importorskip("engine.coursefile", reason="engine.coursefile is not in this checkout")
        xml = await client.get(f"/api/games/{game['id']}/game.xml")
        assert xml.status == 200 and "attachment" in xml.headers["Content-Disposition"]
        assert '<move side="white" value="f1-b5" />' in await xml.text()

    run(test)


def test_save_load_round_trip_keeps_players_and_clocks():
    pytest.importorskip("engine.coursefile", reason="engine.coursefile is not in this checkout")

    async def test(client, server):
        game = await create(client, variant="mit-antichess", white="human", black="human", minutes=3)
        white, black = game["tokens"]["white"], game["tokens"]["black"]
        for text, token in (("e2e4", white), ("d7d5", black), ("e4d5", white), ("d8d5", black)):
            assert (await move(client, game, text, token)).status == 200
        saved_state = await state(client, game)
        xml = await (await client.get(f"/api/games/{game['id']}/game.xml")).read()
        assert b'ruleset="6170-spring-2006"' in xml and b'timed="true"' in xml
        target = await create(client, variant="antiking-antichess", white="human", black="computer", level=1)
        response = await client.post(f"/api/games/{target['id']}/load", data=xml,
                                     headers=headers(target["tokens"]["white"]))
        assert response.status == 200, await response.text()
        loaded = await response.json()
        assert loaded["fen"] == saved_state["fen"] and loaded["variant"] == "mit-antichess"
        assert [p["move"] for p in loaded["history"]] == ["e2-e4", "d7-d5", "e4-d5", "d8-d5"]
        assert loaded["players"] == {"white": "human", "black": "computer"}
        assert 170000 < loaded["clocks"]["white"] <= 180000 and loaded["last_move"] == ["d8", "d5"]
        # saving a finished game and loading it back gives the finished game
        await client.post(f"/api/games/{game['id']}/end", headers=headers(white))
        xml = await (await client.get(f"/api/games/{game['id']}/game.xml")).read()
        response = await client.post(f"/api/games/{game['id']}/load", data=xml, headers=headers(white))
        assert response.status == 200 and (await response.json())["fen"] == saved_state["fen"]

    run(test)


HOSTILE = {
    "entities": b'<?xml version="1.0"?><!DOCTYPE game [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
                b'<game ruleset="&b;"><time timed="false"/><moveHistory/><pieces/></game>',
    "external": b'<?xml version="1.0"?><!DOCTYPE game [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
                b'<game ruleset="&x;"><time timed="false"/><moveHistory/><pieces/></game>',
    "wrong schema": b'<?xml version="1.0"?><chess><board/></chess>',
    "bad move": b'<game ruleset="6170-spring-2006"><time timed="false"/><moveHistory>'
                b'<move side="white" value="e2-e9"/></moveHistory><pieces/></game>',
    "no kings": b'<game ruleset="6170-spring-2006"><time timed="false"/><moveHistory/><pieces>'
                b'<square id="a1" side="white" piece="pawn"/></pieces></game>',
    "binary": bytes(range(256)) * 8,
    "empty": b"",
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_upload_is_refused_and_the_game_stays(name):
    pytest.importorskip("engine.coursefile", reason="engine.coursefile is not in this checkout")

    async def test(client, server):
        game = await create(client, white="human", black="human", minutes=1)
        white = game["tokens"]["white"]
        await move(client, game, "e2e3", white)
        before = await state(client, game)
        response = await client.post(f"/api/games/{game['id']}/load", data=HOSTILE[name], headers=headers(white))
        assert response.status == 400
        assert (await response.json())["error"].startswith("Not a valid antichess game file")
        after = await state(client, game)
        assert (after["fen"], after["history"], after["players"]) == (before["fen"], before["history"],
                                                                       before["players"])

    run(test)


def test_huge_upload_and_tokenless_load_are_refused():
    async def test(client, server):
        game = await create(client, white="human", black="human")
        white = game["tokens"]["white"]
        junk = b"<" * (10 * 1024 * 1024)
        response = await client.post(f"/api/games/{game['id']}/load", data=junk, headers=headers(white))
        assert response.status == 413
        assert "too large" in (await response.json())["error"]
        response = await client.post(f"/api/games/{game['id']}/load", data=b"<game/>")
        assert response.status == 403
        assert (await state(client, game))["history"] == []
        # no request reaches a path on the server
        for path in ("/static/../games.py", "/static/%2e%2e%2fgames.py", "/static/.hidden", "/static/index.htm"):
            assert (await client.get(path)).status == 404
        page = await client.get("/?variant=antichess")
        assert page.status == 200 and "<title>" in await page.text()

    run(test)


def test_a_side_without_a_move_passes_with_a_notice():
    from engine import Game

    from gui.games import Room, Settings

    # black: king h8 walled in by white's king on f7 and pawn on h6, its pawn h7 blocked
    game = Game("mit-antichess", "7k/5K1p/7P/8/8/8/P7/8 b - - 0 1")
    room = Room("passing", Settings(players={"white": "human", "black": "human"}))
    room.start(room.settings, game)
    view = room.state()
    assert view["turn"] == "white" and view["history"] == [{"side": "black", "move": "pass", "pass": True}]
    assert view["notice"] == "Black has no legal move and passes"
    room.play("a2a3", [room.tokens["white"]])
    view = room.state()
    assert view["turn"] == "white" and [p["move"] for p in view["history"]] == ["pass", "a2-a3", "pass"]


def test_variants_list_every_rule_set():
    from engine import RULE_SETS

    async def test(client, server):
        answer = await (await client.get("/api/variants")).json()
        assert [v["name"] for v in answer["variants"]] == list(RULE_SETS)
        assert {v["name"]: v["anti_kings"] for v in answer["variants"]}["antiking1"] is True

    run(test)


def test_gui_imports_the_engine_facade_and_no_other_adapter():
    import ast
    from pathlib import Path

    for path in (Path(__file__).parent.parent / "gui").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in ("protocols", "textui", "tournaments", "antichess"), (path, name)
                assert not name.startswith("engine."), (path, name)


def test_command_serves_on_loopback_and_ctrl_c_exits_130():
    import signal
    import socket
    import subprocess
    import sys
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "antichess", "gui", "--no-browser", "--port", str(port)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line.strip() == f"antichess gui: serving on http://127.0.0.1:{port}/ (Ctrl-C stops it)"
        assert b"<title>Antichess</title>" in urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read()
        # the port is taken now: a second server says so in one line
        second = subprocess.run([sys.executable, "-m", "antichess", "gui", "--no-browser", "--port", str(port)],
                                capture_output=True, text=True, timeout=300)
        assert second.returncode == 1 and second.stderr.startswith("antichess: error: cannot listen on")
        assert len(second.stderr.splitlines()) == 1
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=20)
        assert process.returncode == 130 and "Traceback" not in err
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
