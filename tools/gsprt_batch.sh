#!/bin/bash
# Several GSPRTs at once, each candidate against one base, for a machine with many cores
# (three tests of 5 games at a time on 16 cores; docs/search.md, "How changes are tested").  Every directory is a checkout of the engine (a git worktree or an
# exported tree); each is warmed up first, then each candidate plays the base with the
# runner and test every search change is judged by (3+0.03, antichess check book, colour-swapped pairs,
# elo0=0 elo1=25 alpha=beta=0.1, at most 400 games), all tests side by side.
#
#   tools/gsprt_batch.sh OUTDIR SECONDS CONCURRENCY SEED BASE CANDIDATE...
#
# SECONDS bounds each test (one still undecided then is stopped; its PGN keeps the games);
# CONCURRENCY is the games each test plays at a time (tests x concurrency <= cores); test i
# uses -srand SEED+i.  Writes OUTDIR/NAME.log and OUTDIR/NAME.pgn per candidate (NAME: the
# candidate directory's last component).  The environment may change the rule set, book and
# time control: VARIANT=losers BOOK=tournaments/books/losers.epd TC=3+0.03 (the defaults are
# antichess, tournaments/books/antichess-balanced-check.epd and 3+0.03); HASH=64 gives both
# engines a table of that many MiB (default: the engine's own default).
set -u
if [ $# -lt 6 ]; then
    sed -n '2,13p' "$0" >&2
    exit 2
fi
out=$1 seconds=$2 concurrency=$3 seed=$4 base=$5
shift 5
mkdir -p "$out"
out=$(cd "$out" && pwd)
base=$(cd "$base" && pwd)
export PYTHONUNBUFFERED=1
started=$(date +%s)
for dir in "$base" "$@"; do
    (cd "$dir" && python3 -m antichess warmup >/dev/null 2>&1
     echo "$(basename "$dir") warmed up (rc $?) after $(( $(date +%s) - started )) s") &
done
wait
i=0
for candidate in "$@"; do
    i=$((i + 1))
    candidate=$(cd "$candidate" && pwd)
    name=$(basename "$candidate")
    (cd "$base" && timeout "$seconds" python3 -m antichess tournament \
        -engine name=new cmd=python3 arg=-m arg=antichess arg=uci dir="$candidate" proto=uci \
        -engine name=base cmd=python3 arg=-m arg=antichess arg=uci dir="$base" proto=uci \
        -each restart=off ${HASH:+option.Hash=$HASH} tc="${TC:-3+0.03}" timemargin=300 -variant "${VARIANT:-antichess}" -games 2 -rounds 200 \
        -openings file="${BOOK:-tournaments/books/antichess-balanced-check.epd}" order=random -srand $((seed + i)) \
        -concurrency "$concurrency" -sprt elo0=0 elo1=25 alpha=0.1 beta=0.1 \
        -pgnout "$out/$name.pgn" >"$out/$name.log" 2>&1) &
done
wait
for candidate in "$@"; do
    name=$(basename "$candidate")
    echo "== $name"
    grep '^Games' "$out/$name.log" | tail -1
    grep -E '^SPRT: llr|^Pairs' "$out/$name.log" | tail -2
done
echo "total $(( $(date +%s) - started )) s"
