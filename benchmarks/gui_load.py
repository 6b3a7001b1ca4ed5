"""Load test of `antichess gui` on loopback: one server, many simultaneous games.

Starts `python -m antichess gui --no-browser` on 127.0.0.1 (a free port; never any other
address), creates GAMES games of a human (white) against the computer (black, level 1),
and simulates each human over the network API: a WebSocket with the white seat's token,
plus a second WebSocket per game that stands for the other player's page.  Each human
move is sent over the socket; its latency is the time until BOTH sockets have received a
state that shows it.  The script stops by itself after MOVES human moves a game or
SECONDS seconds, whichever comes first, and prints the figures; its exit status is 1
when any error occurred or a latency passed the bound.

    python3 benchmarks/gui_load.py [--games 50] [--moves 15] [--seconds 120] [--bound-ms 200]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Stats:
    def __init__(self):
        self.latencies: list[float] = []
        self.replies: list[float] = []
        self.errors: list[str] = []
        self.finished = 0


async def next_state(ws, predicate, deadline):
    """Read `ws` until a state message satisfies `predicate`; the state, or None at `deadline`."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        try:
            message = await ws.receive_json(timeout=left)
        except asyncio.TimeoutError:
            return None
        if message.get("type") == "error":
            raise RuntimeError(message["message"])
        if message.get("type") == "state" and predicate(message["state"]):
            return message["state"]


async def play_game(session: aiohttp.ClientSession, base: str, moves: int, stop_at: float, stats: Stats,
                    rng: random.Random) -> None:
    async with session.post(f"{base}/api/games", json={"variant": "antichess", "white": "human",
                                                       "black": "computer", "level": 1, "minutes": 10}) as r:
        created = await r.json()
        if r.status != 200:
            stats.errors.append(f"create: {created}")
            return
    game_id, token = created["id"], created["tokens"]["white"]
    player = await session.ws_connect(f"{base.replace('http', 'ws')}/api/games/{game_id}/ws?tokens={token}")
    other = await session.ws_connect(f"{base.replace('http', 'ws')}/api/games/{game_id}/ws")
    try:
        state = await next_state(player, lambda s: True, time.monotonic() + 5)
        await next_state(other, lambda s: True, time.monotonic() + 5)
        for _ in range(moves):
            if state is None or state["over"] or time.monotonic() > stop_at:
                break
            move = rng.choice(state["legal"])
            plies = len(state["history"])
            sent = time.monotonic()
            await player.send_json({"type": "move", "move": move})
            shown = lambda s, n=plies: len(s["history"]) > n  # noqa: E731
            seen = await asyncio.gather(next_state(player, shown, sent + 5), next_state(other, shown, sent + 5))
            if None in seen:
                stats.errors.append(f"{game_id}: move {move} not shown within 5 s")
                return
            stats.latencies.append(time.monotonic() - sent)
            state = seen[0]
            if state["over"]:
                break
            answered = time.monotonic()
            mine = lambda s: s["over"] is not None or (s["turn"] == "white" and s["legal"])  # noqa: E731
            state = await next_state(player, mine, answered + 30)
            if state is None:
                stats.errors.append(f"{game_id}: no computer reply within 30 s")
                return
            stats.replies.append(time.monotonic() - answered)
            # the other page sees the reply too; drain it
            await next_state(other, lambda s, n=len(state["history"]): len(s["history"]) >= n, time.monotonic() + 5)
        stats.finished += 1
    except Exception as error:  # noqa: BLE001 - every failure is a counted error
        stats.errors.append(f"{game_id}: {type(error).__name__}: {error}")
    finally:
        await player.close()
        await other.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def run(args) -> int:
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "antichess", "gui", "--no-browser", "--host", "127.0.0.1",
                               "--port", str(port)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
    try:
        line = await asyncio.get_running_loop().run_in_executor(None, server.stdout.readline)
        if "serving on" not in line:
            print(f"the server did not start: {line.strip()}")
            return 1
        base = f"http://127.0.0.1:{port}"
        stats = Stats()
        rng = random.Random(args.seed)
        started = time.monotonic()
        stop_at = started + args.seconds
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as session:
            await asyncio.gather(*(play_game(session, base, args.moves, stop_at, stats, random.Random(rng.random()))
                                   for _ in range(args.games)))
        elapsed = time.monotonic() - started
    finally:
        server.terminate()
        server.wait(10)
    over = [t for t in stats.latencies if t * 1000 > args.bound_ms]
    print(f"games {args.games}, finished {stats.finished}, human moves {len(stats.latencies)}, "
          f"computer replies {len(stats.replies)}, {elapsed:.1f} s")
    if stats.latencies:
        ms = [t * 1000 for t in stats.latencies]
        print(f"human move shown to both pages: median {statistics.median(ms):.1f} ms, "
              f"p95 {percentile(ms, 0.95):.1f} ms, max {max(ms):.1f} ms (bound {args.bound_ms} ms, "
              f"{len(over)} over)")
    if stats.replies:
        ms = [t * 1000 for t in stats.replies]
        print(f"computer reply (level 1): median {statistics.median(ms):.0f} ms, p95 {percentile(ms, 0.95):.0f} ms")
    print(f"errors {len(stats.errors)}")
    for error in stats.errors[:10]:
        print("  " + error)
    return 1 if stats.errors or over else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--moves", type=int, default=15, help="human moves a game (default 15)")
    parser.add_argument("--seconds", type=float, default=120, help="stop after this long (default 120)")
    parser.add_argument("--bound-ms", type=float, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    try:
        return asyncio.run(run(args))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
