"""The `antichess` command: one entry point with subcommands.

    antichess                 the engine: UCI or CECP, chosen by the first input line
    antichess --version       the version
    antichess uci | xboard    that protocol, whatever the first line
    antichess hackerrank      the HackerRank bot: reads a board, prints one move
    antichess textui [-s] [-v]  the MIT 6.170 TextUI
    antichess tournament ...  engine-vs-engine matches (cutechess-cli options); see docs/tournaments.md
    antichess bench [--depth N]  fixed search workload: node signature and speed
    antichess perft --variant V [--fen FEN] [--moves M ...] --depth N [--divide]   (Ctrl-C stops it at once)
    antichess warmup
    antichess tablebase build|probe|stats ...  endgame tables of antichess/suicide (docs/tablebases.md)
    antichess gui [--host H] [--port P] [--no-browser]   the board in the browser (docs/gui.md)

Every error is one line on stderr (`antichess: error: ...`) and a non-zero exit status,
never a traceback.  Run as `antichess ...` or `python -m antichess ...`.  The subcommands'
packages are imported only when asked for, so that start-up stays fast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are a single line on stderr."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"antichess: error: {message}\n")


class CommandError(Exception):
    """A user error: printed as one line, exit status 1."""


def _version() -> str:
    """The installed package's version (the source tree's when it is not installed)."""
    from importlib import metadata

    try:
        return metadata.version("antichess-engine")
    except metadata.PackageNotFoundError:
        return "(not installed)"


def _build_parser() -> argparse.ArgumentParser:
    from engine import RULE_SETS

    parser = _Parser(prog="antichess", description=(
        "Antichess and chess-variant engine.  With no COMMAND the program is the engine: it "
        "reads its first input line and speaks UCI or CECP (xboard) as that line asks, which is "
        "how GUIs such as XBoard and Cute Chess start it."),
        epilog="Every error is one line on stderr; see the README and docs/ for each command.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    perft = commands.add_parser("perft", help="count the leaf nodes of the move tree")
    perft.add_argument("--variant", default="chess",
                       help="rule set: " + ", ".join(RULE_SETS) + " (default chess)")
    perft.add_argument("--fen", help="start position (default: the rule set's start position)")
    perft.add_argument("--depth", required=True, help="plies to search, 0 to 30")
    perft.add_argument("--moves", nargs="*", default=[], metavar="MOVE",
                       help="moves played from the start position before counting (UCI notation)")
    perft.add_argument("--divide", action="store_true", help="print the count below each root move")

    commands.add_parser("warmup", help="compile the engine's kernels into the disk cache")
    commands.add_parser("tournament", help="engine-vs-engine matches, cutechess-cli style options")
    bench = commands.add_parser("bench", help="search fixed positions: node signature and speed")
    bench.add_argument("--depth", default="7", help="search depth per position (1 to 20, default 7)")
    commands.add_parser("uci", help="speak UCI on stdin/stdout")
    commands.add_parser("xboard", help="speak CECP (xboard protocol 2) on stdin/stdout")
    commands.add_parser("hackerrank", help="read a HackerRank board on stdin, print one move")
    textui = commands.add_parser("textui", help="the MIT 6.170 TextUI on stdin/stdout")
    textui.add_argument("-s", dest="show_board", action="store_true", help="enable ShowBoard")
    textui.add_argument("-v", dest="verbose", action="store_true", help="say on stderr why a file is corrupt")
    gui = commands.add_parser("gui", help="the board in the browser: a local web server (docs/gui.md)")
    gui.add_argument("--host", default="127.0.0.1",
                     help="address to listen on (default 127.0.0.1; 0.0.0.0 for play over the network)")
    gui.add_argument("--port", default="8170", help="port to listen on (default 8170)")
    gui.add_argument("--no-browser", action="store_true", help="do not open the default browser")
    tablebase = commands.add_parser("tablebase", help="endgame tables: build, probe, stats")
    tb_commands = tablebase.add_subparsers(dest="tb_command", metavar="ACTION", parser_class=_Parser,
                                           required=True)
    for action, text in (("build", "build the tables missing from the folder (resumable)"),
                         ("probe", "value, distance and best moves of FENs (arguments, else stdin lines)"),
                         ("stats", "won/drawn/lost counts, longest win, build time and size per table")):
        sub = tb_commands.add_parser(action, help=text)
        sub.add_argument("--variant", default="antichess", help="antichess, giveaway or suicide")
        sub.add_argument("--dir", help="table folder (default: the engine's cache folder)")
        if action == "build":
            sub.add_argument("--pieces", default="3", help="largest piece count, 2 to 4 (default 3)")
            sub.add_argument("--only", nargs="*", metavar="MATERIAL",
                             help="just these materials (e.g. KQvK) and the tables they need")
            sub.add_argument("--workers", default="0",
                             help="tables built side by side, one per core (default 0: every core)")
        if action == "probe":
            sub.add_argument("fens", nargs="*", metavar="FEN")
    return parser


def _perft(args: argparse.Namespace) -> None:
    from engine import RuleError, get_rule_set

    try:
        rules = get_rule_set(args.variant)
    except RuleError as error:
        raise CommandError(str(error)) from None
    try:
        depth = int(args.depth)
    except ValueError:
        raise CommandError(f"depth must be an integer, got {args.depth!r}") from None

    from engine import MAX_PERFT_DEPTH, FenError, Game

    if not 0 <= depth <= MAX_PERFT_DEPTH:
        raise CommandError(f"depth must be between 0 and {MAX_PERFT_DEPTH}, got {depth}")
    try:
        game = Game(rules, args.fen)
    except FenError as error:
        raise CommandError(f"invalid FEN {args.fen!r}: {error}") from None
    for text in args.moves:
        try:
            game.push(text)
        except ValueError as error:
            reason = getattr(error, "reason", None) or str(error)
            raise CommandError(f"move {text!r} after {' '.join(m.uci() for m in game.move_stack) or 'the start'}: "
                               f"{reason}") from None
    import time

    started = time.perf_counter()
    if args.divide and depth >= 1:
        def divide(stop) -> int:
            total = 0
            for move in sorted(game.legal_moves(), key=lambda move: move.uci()):
                game.push(move)
                try:
                    nodes = game.perft(depth - 1, stop)
                finally:
                    game.pop()
                print(f"{move.uci()}: {nodes}", flush=True)  # each line as soon as it is counted
                total += nodes
            print()
            return total

        total = _stoppable(divide)
    else:
        total = _stoppable(lambda stop: game.perft(depth, stop))
    seconds = time.perf_counter() - started
    print(f"Nodes searched: {total}", flush=True)  # standard output's last line, for scripts
    print(f"perft {depth}: {total} nodes in {seconds:.3f} s ({int(total / seconds) if seconds > 0 else 0} nodes/s)",
          file=sys.stderr)


def _stoppable(count):
    """Run `count(stop)` (a perft or the bench) in a worker thread while this thread waits,
    so that a Ctrl-C (SIGINT) is handled at once: the handler sets the StopFlag, the kernel
    returns within milliseconds, and KeyboardInterrupt is raised here (exit status 130)."""
    import signal
    import threading

    from engine import BenchStopped, PerftStopped, StopFlag

    stop = StopFlag()
    outcome: dict = {}

    def work() -> None:
        try:
            outcome["value"] = count(stop)
        except BaseException as error:  # handed to the waiting thread
            outcome["error"] = error

    def interrupted(signum, frame) -> None:
        stop.set()

    worker = threading.Thread(target=work, name="perft", daemon=True)
    try:
        previous = signal.signal(signal.SIGINT, interrupted)
    except ValueError:  # not the main thread: no handler, the count runs to the end
        previous = None
    try:
        worker.start()
        while worker.is_alive():
            worker.join(0.05)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    error = outcome.get("error")
    if isinstance(error, (PerftStopped, BenchStopped)) or (stop.is_set() and error is None):
        raise KeyboardInterrupt
    if isinstance(error, ValueError):
        raise CommandError(str(error))
    if error is not None:
        raise error
    return outcome["value"]


def _bench(args: argparse.Namespace) -> None:
    try:
        depth = int(args.depth)
    except ValueError:
        raise CommandError(f"depth must be an integer, got {args.depth!r}") from None
    if not 1 <= depth <= 20:
        raise CommandError(f"depth must be between 1 and 20, got {depth}")
    from engine import run_bench

    nodes, seconds = _stoppable(lambda stop: run_bench(depth, report=lambda line: print(line, file=sys.stderr),
                                                       stop=stop))
    print(f"Total time (ms) : {int(seconds * 1000)}")
    print(f"Nodes searched  : {nodes}")
    print(f"Nodes/second    : {int(nodes / seconds) if seconds else 0}")


def _warmup(args: argparse.Namespace) -> None:
    """Compile every kernel; a progress bar on a terminal, one line per kernel otherwise."""
    from engine import CACHE_DIR, kernel_count, warmup

    if sys.stderr.isatty():
        from tqdm import tqdm

        with tqdm(total=kernel_count(), desc="compiling kernels", unit="kernel", leave=False) as bar:
            def progress(done: int, total: int, name: str) -> None:
                bar.set_postfix_str(name, refresh=False)
                bar.update(done - bar.n)

            seconds = warmup(progress)
    else:
        seconds = warmup(lambda done, total, name: print(f"compiled {done}/{total} {name}",
                                                         file=sys.stderr, flush=True))
    print(f"engine kernels ready in {seconds:.1f} s (cache: {CACHE_DIR})")


def _tablebase(args: argparse.Namespace) -> int:
    """`antichess tablebase build|probe|stats` (engine.tablebase does the work)."""
    import time

    from engine import tablebase

    try:
        tablebase.table_variant(args.variant)
    except Exception as error:  # unknown rule set or one without tables
        raise CommandError(str(error)) from None
    directory = args.dir or tablebase.default_directory()
    if args.tb_command == "build":
        if not args.pieces.isdigit() or not 2 <= int(args.pieces) <= tablebase.MAX_PIECES:
            raise CommandError(f"--pieces must be 2 to {tablebase.MAX_PIECES}")
        if not args.workers.isdigit():
            raise CommandError("--workers must be a number (0: every core)")
        if args.only is not None:
            if not args.only:
                raise CommandError("--only needs at least one material (e.g. --only KQvK)")
            for name in args.only:
                try:
                    tablebase.Material.parse(name)
                except ValueError as error:
                    raise CommandError(f"--only: {error}") from None
        started = time.perf_counter()
        bar = None
        done = {"positions": 0, "tables": 0, "seconds": 0.0}

        def callback(event: dict) -> None:
            nonlocal bar
            if event["event"] == "start":
                print(f"{event['pending']} of {event['tables']} tables to build, {event['total_positions']} "
                      f"positions, in {directory}", file=sys.stderr, flush=True)
                if sys.stderr.isatty():
                    from tqdm import tqdm

                    bar = tqdm(total=event["total_positions"], unit="pos", unit_scale=True, leave=False)
            elif event["event"] == "dtz":
                if event["pending"]:
                    print(f"{event['pending']} DTZ companions to build (wins longer than "
                          f"{tablebase.DTZ_FROM_PLIES} plies), {event['total_positions']} positions",
                          file=sys.stderr, flush=True)
                if bar is not None:
                    bar.total += event["total_positions"]
                    bar.refresh()
            elif event["event"] == "progress" and bar is not None:
                bar.update(event["positions"])
            elif event["event"] == "table" and not event["skipped"]:
                header = event["header"]
                done["positions"] += header["size"]
                done["tables"] += 1
                done["seconds"] += header["scan_seconds"]
                seconds = header["build_seconds"]
                name = header["material"] + (" (DTZ)" if header.get("metric") == "dtz" else "")
                line = (f"{name}: {header['size']} positions in {seconds:.2f} s "
                        f"({int(header['size'] / seconds) if seconds else 0} positions/s; scan "
                        f"{header['positions_per_second']} positions/s), {header['file_bytes']} bytes")
                if bar is not None:
                    bar.set_postfix_str(name, refresh=False)
                else:
                    print(line, file=sys.stderr, flush=True)

        try:
            tablebase.build(args.variant, int(args.pieces), directory, callback, only=args.only,
                            workers=int(args.workers) or None)
        finally:
            if bar is not None:
                bar.close()
        seconds = time.perf_counter() - started
        rate = int(done["positions"] / done["seconds"]) if done["seconds"] else 0
        overall = int(done["positions"] / seconds) if seconds else 0
        print(f"built {done['tables']} tables ({done['positions']} positions) in {seconds:.1f} s "
              f"({overall} positions/s); generator scan {rate} positions/s per thread")
        return 0
    if args.tb_command == "stats":
        folder = Path(directory) / tablebase.table_variant(args.variant)
        if not folder.is_dir() or not any(folder.iterdir()):
            print(f"no {tablebase.table_variant(args.variant)} tables in {folder}: the folder is empty or "
                  f"does not exist (build them with `antichess tablebase build --variant {args.variant}"
                  f"{' --dir ' + str(args.dir) if args.dir else ''}`)")
            return 0
        print(tablebase.stats_markdown(args.variant, directory))
        return 0
    tb = tablebase.Tablebase(args.variant, directory)
    lines = args.fens or (line.strip() for line in sys.stdin)
    failed = False
    out = sys.stdout
    for fen in lines:
        if not fen:
            continue
        try:
            result = tb.probe_fen(fen)
        except tablebase.TablebaseError as error:
            failed = True
            out.write(f"error {fen}: {_missing_table_hint(fen, args, directory) or error}\n")
            continue
        except Exception as error:  # FenError: one line, then the rest
            failed = True
            out.write(f"error {fen}: {error}\n")
            continue
        out.write(f"value {result.value} distance {result.distance} moves {' '.join(result.moves)}".rstrip()
                  + "\n")
    out.flush()
    return 1 if failed else 0


def _missing_table_hint(fen: str, args: argparse.Namespace, directory) -> str | None:
    """When the table of the position in `fen` (or one it needs) is not on disk: which, named
    as the FEN has it (white's pieces first, e.g. RvK), and the command that builds it."""
    from engine import tablebase

    placement = fen.split()[0]
    white = "".join(sorted((c for c in placement if c.isupper()), key="KQRBNP".index))
    black = "".join(sorted((c.upper() for c in placement if c.islower()), key="KQRBNP".index))
    name = f"{white}v{black}"
    try:
        material = tablebase.Material.parse(name)
    except ValueError:
        return None
    variant = tablebase.table_variant(args.variant)
    path = tablebase.table_path(directory, args.variant, material.canonical())
    what = f"no {name} table" if not path.exists() else f"a table {name} depends on is missing"
    where = f" --dir {args.dir}" if args.dir else ""
    return (f"{what} in {Path(directory) / variant}: build it with "
            f"`antichess tablebase build --variant {args.variant} --only {name}{where}`")


def _gui(args: argparse.Namespace) -> int:
    try:
        port = int(args.port)
    except ValueError:
        raise CommandError(f"--port must be a number, not {args.port!r}") from None
    if not 0 <= port <= 65535:
        raise CommandError(f"--port must be between 0 and 65535, not {port}")
    from engine import cache_is_complete, warmup

    if not cache_is_complete():
        print("antichess gui: compiling the engine's kernels (once, about 23 s)", file=sys.stderr, flush=True)
        warmup()
    from gui import run

    try:
        return run(args.host, port, open_browser=not args.no_browser)
    except OSError as error:
        raise CommandError(f"cannot listen on {args.host}:{port}: {error.strerror or error}") from None


def _protocol(name: str):
    """The loop of one protocol adapter, imported only when asked for (keeps start-up fast)."""
    import importlib

    module = importlib.import_module({"auto": "protocols.auto", "uci": "protocols.uci",
                                      "xboard": "protocols.xboard",
                                      "hackerrank": "protocols.hackerrank"}[name])
    return module.main


def main(argv: list[str] | None = None) -> int:
    """Run the `antichess` command line; returns the process exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        return _protocol("auto")()
    if argv[0] == "tournament":
        from tournaments.cli import main as tournament_main

        return tournament_main(argv[1:])
    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.command in ("uci", "xboard", "hackerrank"):
        return _protocol(args.command)()
    if args.command == "textui":
        from textui.__main__ import main as textui_main

        return textui_main((["-s"] if args.show_board else []) + (["-v"] if args.verbose else []))
    handlers = {"perft": _perft, "warmup": _warmup, "bench": _bench, "tablebase": _tablebase, "gui": _gui}
    if args.command is None:
        parser.print_usage(sys.stderr)
        return 2
    try:
        status = handlers[args.command](args)
    except CommandError as error:
        print(f"antichess: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("antichess: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    sys.stdout.flush()
    return status or 0


if __name__ == "__main__":
    sys.exit(main())
