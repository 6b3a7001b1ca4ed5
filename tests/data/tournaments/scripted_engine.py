#!/usr/bin/env python3
"""A scripted UCI engine for the fixed-node judge's tests (tournaments/judge.py).

Usage: scripted_engine.py [MODE], MODE one of
  bound   answers `go` with an exact score of +30 cp, then a -50 cp upper bound
  mate    answers `go` with `score mate -2`
It declares Threads, Hash and UCI_Variant (antichess and losers only); it answers with the
move e2e3 when Threads was set to 1, Hash to 16 and the `go` line asks for a node count,
else with a1a1.
"""

import sys


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "bound"
    options = set()
    for line in sys.stdin:
        command = line.split()
        if not command:
            continue
        if command[0] == "uci":
            print("id name Scripted " + mode)
            print("option name Threads type spin default 1 min 1 max 8")
            print("option name Hash type spin default 16 min 1 max 1024")
            print("option name UCI_Variant type combo default antichess var antichess var losers")
            print("uciok")
        elif command[0] == "setoption":
            options.add(" ".join(command[2:]))
        elif command[0] == "isready":
            print("readyok")
        elif command[0] == "go":
            if mode == "mate":
                print("info depth 3 score mate -2 pv e2e3")
            else:
                print("info depth 1 score cp 30 pv e2e3")
                print("info depth 2 score cp -50 upperbound pv e2e3")
            asked = "nodes" in command and {"Threads value 1", "Hash value 16"} <= options
            print("bestmove " + ("e2e3" if asked else "a1a1"))
        elif command[0] == "quit":
            return
        sys.stdout.flush()


if __name__ == "__main__":
    main()
