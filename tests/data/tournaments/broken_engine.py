#!/usr/bin/env python3
"""A deliberately broken UCI engine for the referee's forfeit tests.

Usage: broken_engine.py MODE, MODE one of
  illegal   answers every `go` with a well-formed move that is never legal (e2e5)
  crash     exits (status 3) when asked for its first move
  hang      never answers `go` (loses on time)
  garbage   answers `go` with `bestmove banana`
  stall     completes the handshake, then never answers `isready` again
It knows every UCI_Variant name so that any rule set can be set up.
"""

import sys

VARIANTS = ("chess antichess giveaway suicide losers mit-antichess antiking-antichess "
            "antiking1 antiking2 hackerrank")


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "illegal"
    readies = 0
    for line in sys.stdin:
        command = line.split()
        if not command:
            continue
        if command[0] == "uci":
            print("id name Broken " + mode)
            print("option name UCI_Variant type combo default chess"
                  + "".join(" var " + v for v in VARIANTS.split()))
            print("uciok")
        elif command[0] == "isready":
            readies += 1
            if mode == "stall" and readies > 1:
                continue
            print("readyok")
        elif command[0] == "go":
            if mode == "crash":
                sys.exit(3)
            if mode == "hang":
                continue
            if mode == "garbage":
                print("info depth 1 score cp 0")
                print("bestmove banana")
            else:
                print("bestmove e2e5")
        elif command[0] == "quit":
            return
        sys.stdout.flush()


if __name__ == "__main__":
    main()
