"""`antichess tournament ...`: a cutechess-cli style command line, and `report DB`.

    antichess tournament -engine name=A cmd=antichess proto=uci \\
        -engine name=Sjeng cmd=/usr/games/sjeng proto=xboard variantmap=antichess:suicide \\
        -each tc=10+0.1 timemargin=200 -variant antichess -games 2 -rounds 50 \\
        -openings file=tournaments/books/antichess.epd format=epd order=random \\
        -sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 -concurrency 2 -srand 7 \\
        -pgnout games.pgn -db match.sqlite -recover
    antichess tournament report match.sqlite [--png elo.png] [--pgn games.pgn]

Every user error is one line `antichess: error: ...` and exit status 1 (2 for usage).
"""

from __future__ import annotations

import os
import sys

from .engines import ConfigError, engine_config, parse_bool
from .openings import OpeningsError, OpeningsSpec
from .referee import DrawAdjudication, RefereeSettings, ResignAdjudication
from .stats import SprtSettings
from .store import StoreError
from .timecontrol import TimeControlError

USAGE = """usage: antichess tournament -engine KEY=VALUE... -engine KEY=VALUE... [options]
       antichess tournament report DB [--png FILE] [--pgn FILE]

engine keys: name cmd arg dir proto=uci|xboard option.NAME=VALUE tc=[MOVES/]TIME[+INC] st=SEC
             depth=N nodes=N timemargin=MS variantmap=OURS:THEIRS[,...] restart=on|off
             tscale=F stderr=FILE stfactor=F
options: -each KEY=VALUE...  -variant NAME  -games N  -rounds N  -repeat [2]
         -tournament round-robin|gauntlet  -concurrency N
         -openings file=F format=epd|pgn order=sequential|random plies=N start=N
         -pgnout FILE  -sprt elo0=E elo1=E alpha=A beta=B
         -draw movenumber=N movecount=N score=CP  -resign movecount=N score=CP [twosided=true]
         -maxmoves N  -repetition N  -recover  -srand N  -event NAME  -site NAME
         -db FILE  -cluster threads|local|tcp://HOST:8786  -debug
"""


class UsageError(Exception):
    """A malformed command line."""


def _pairs(tokens: list[str], option: str) -> list[tuple[str, str]]:
    pairs = []
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep or not key:
            raise UsageError(f"{option}: expected KEY=VALUE, got {token!r}")
        pairs.append((key, value))
    return pairs


def _split(argv: list[str]) -> list[tuple[str, list[str]]]:
    """[(option, [values...])] in order; an option is a token starting with '-' and a letter."""
    groups: list[tuple[str, list[str]]] = []
    for token in argv:
        if len(token) > 1 and token[0] == "-" and token[1].isalpha() and "=" not in token:
            groups.append((token, []))
        elif not groups:
            raise UsageError(f"unexpected argument {token!r}")
        else:
            groups[-1][1].append(token)
    return groups


def _int(value: list[str], option: str, low: int = 0) -> int:
    if len(value) != 1:
        raise UsageError(f"{option} takes one value")
    try:
        number = int(value[0])
    except ValueError:
        raise UsageError(f"{option}: not an integer: {value[0]!r}") from None
    if number < low:
        raise UsageError(f"{option} must be at least {low}")
    return number


def _kv(pairs, allowed, option) -> dict:
    values = dict(pairs)
    unknown = set(values) - set(allowed)
    if unknown:
        raise UsageError(f"{option}: unknown key {sorted(unknown)[0]!r}")
    return values


def _number(values, key, option, cast=float, required=True, default=None):
    if key not in values:
        if required:
            raise UsageError(f"{option} needs {key}=")
        return default
    try:
        return cast(values[key])
    except ValueError:
        raise UsageError(f"{option}: bad {key} {values[key]!r}") from None


def parse(argv: list[str]):
    """A TournamentConfig (and the debug flag) from cutechess-style arguments."""
    from .tournament import TournamentConfig

    engines_raw: list[list[tuple[str, str]]] = []
    each: list[tuple[str, str]] = []
    settings: dict = {}
    referee: dict = {}
    debug = False
    for option, values in _split(argv):
        if option == "-engine":
            engines_raw.append(_pairs(values, option))
        elif option == "-each":
            each.extend(_pairs(values, option))
        elif option == "-variant":
            if len(values) != 1:
                raise UsageError("-variant takes one name")
            settings["variant"] = values[0]
        elif option in ("-games", "-rounds", "-concurrency"):
            settings[option[1:]] = _int(values, option, 1)
        elif option == "-repeat":
            if values and values != ["2"]:
                raise UsageError("-repeat: openings are always played twice, colours swapped")
        elif option == "-tournament":
            if len(values) != 1:
                raise UsageError("-tournament takes one value")
            settings["kind"] = values[0]
        elif option == "-openings":
            v = _kv(_pairs(values, option), ("file", "format", "order", "plies", "start", "policy"), option)
            if "file" not in v:
                raise UsageError("-openings needs file=")
            settings["openings"] = OpeningsSpec(
                file=v["file"], format=v.get("format", "epd"), order=v.get("order", "sequential"),
                plies=_number(v, "plies", option, int, False), start=_number(v, "start", option, int, False, 1))
            if settings["openings"].start < 1:
                raise UsageError("-openings start= counts from 1")
        elif option == "-pgnout":
            if not values:
                raise UsageError("-pgnout needs a file name")
            settings["pgnout"] = values[0]
        elif option == "-sprt":
            v = _kv(_pairs(values, option), ("elo0", "elo1", "alpha", "beta", "model"), option)
            if v.get("model", "logistic") != "logistic":
                raise UsageError("-sprt: only model=logistic is supported")
            try:
                settings["sprt"] = SprtSettings(
                    _number(v, "elo0", option), _number(v, "elo1", option),
                    _number(v, "alpha", option, required=False, default=0.05),
                    _number(v, "beta", option, required=False, default=0.05))
            except ValueError as error:
                raise UsageError(f"-sprt: {error}") from None
        elif option == "-draw":
            v = _kv(_pairs(values, option), ("movenumber", "movecount", "score"), option)
            referee["draw"] = DrawAdjudication(_number(v, "movenumber", option, int),
                                               _number(v, "movecount", option, int),
                                               _number(v, "score", option, int))
        elif option == "-resign":
            v = _kv(_pairs(values, option), ("movecount", "score", "twosided"), option)
            try:
                two = parse_bool(v.get("twosided", "false"))
            except ConfigError as error:
                raise UsageError(f"-resign: {error}") from None
            referee["resign"] = ResignAdjudication(_number(v, "movecount", option, int),
                                                   _number(v, "score", option, int), two)
        elif option == "-maxmoves":
            referee["maxmoves"] = _int(values, option, 0)
        elif option == "-repetition":
            referee["repetition"] = _int(values, option, 0)
        elif option == "-recover":
            settings["recover"] = True
        elif option == "-srand":
            settings["srand"] = _int(values, option, 0)
        elif option in ("-event", "-site"):
            settings[option[1:]] = " ".join(values) or "?"
        elif option == "-db":
            if len(values) != 1:
                raise UsageError("-db takes one file name")
            settings["db"] = values[0]
        elif option == "-cluster":
            if len(values) != 1:
                raise UsageError("-cluster takes local, threads or an address")
            settings["cluster"] = values[0]
        elif option == "-debug":
            debug = True
        elif option == "-ratinginterval":
            pass  # cutechess compatibility: progress is printed after every pair
        else:
            raise UsageError(f"unknown option {option}")
    if len(engines_raw) < 2:
        raise UsageError("give at least two -engine")
    engines = tuple(engine_config(each + raw) for raw in engines_raw)
    config = TournamentConfig(engines=engines, referee=RefereeSettings(**referee), **settings)
    return config, debug


def _report(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="antichess tournament report", add_help=True)
    parser.add_argument("db")
    parser.add_argument("--png", help="Elo plot (default: DB with .png)")
    parser.add_argument("--pgn", help="also write every stored game to this PGN file")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0) and 2
    from .report import format_summary, summarize, write_atomically, write_png
    from .store import Store

    if not os.path.exists(args.db):
        raise StoreError(f"{args.db}: no such file")
    with Store(args.db) as store:
        identity = store.get_meta("identity")
        if identity is None:
            raise StoreError(f"{args.db}: not a tournament database")
        names = [e["name"] for e in identity["engines"]]
        sprt = SprtSettings(*identity["sprt"]) if identity.get("sprt") else None
        games = store.games()
    summary = summarize(games, names, sprt)
    # the files first: a reader that stops early (`| head`) costs only the printed lines
    png = args.png or (os.path.splitext(args.db)[0] + ".png")
    write_png(summary, png)
    if args.pgn:
        write_atomically(args.pgn, lambda out: out.writelines(game["pgn"] for game in games))
    print(f"{identity['variant']}: {len(games)} games")
    print(format_summary(summary, identity.get("kind", "round-robin")))
    print(f"Elo plot written to {png}")
    if args.pgn:
        print(f"{len(games)} games written to {args.pgn}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of `antichess tournament`; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv[:1] == ["report"]:
            return _report(argv[1:])
        if not argv or argv[0] in ("-h", "--help", "-help"):
            print(USAGE, end="")
            return 0 if argv else 2
        config, debug = parse(argv)
        from .tournament import run

        if debug:
            config = _with_debug(config)
        run(config)
        sys.stdout.flush()  # here, so that a reader that has gone is seen below
        return 0
    except UsageError as error:
        print(f"antichess: error: {error}", file=sys.stderr)
        return 2
    except (ConfigError, OpeningsError, StoreError, TimeControlError, RuntimeError) as error:
        print(f"antichess: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; run the same command again to resume", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `... | head`: the reader has gone; exit quietly
        _drop_stdout()
        return 0


def _drop_stdout() -> None:
    """Send what is left of stdout to /dev/null, so that the interpreter's last flush does
    not fail on the closed pipe again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real stdout (e.g. captured)
        pass


def _with_debug(config):
    """The same tournament with every engine's protocol lines printed on stderr."""
    from dataclasses import replace

    return replace(config, engines=tuple(replace(e, debug=True) for e in config.engines))
