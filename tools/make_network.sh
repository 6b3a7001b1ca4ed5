#!/bin/sh
# Rebuild engine/eval_network.npz from scratch (docs/search.md, "Evaluation network" and
# "Stand-pat quiescence"): six data runs, two at a time (about 75 minutes on two cores), then
# the fit (about 10 minutes).
#
#   tools/make_network.sh PATH/fairy-stockfish-c19b5f6c [OUTDIR]
#
# The two self-play runs are played by the engine of commit 7e3e462 (with --no-network: the
# linear evaluation alone, as before the first network; without it: the first network), so
# later search changes do not change the games; that needs the repository's history (not a
# shallow clone).  The master build's games do not depend on our engine.
set -eu
teacher=${1:?usage: tools/make_network.sh PATH/fairy-stockfish-c19b5f6c [OUTDIR]}
teacher=$(cd "$(dirname "$teacher")" && pwd)/$(basename "$teacher")
cd "$(dirname "$0")/.."
out=${2:-artifacts/network-data}
mkdir -p "$out"
out=$(cd "$out" && pwd)
old="$out/engine-7e3e462"
if [ ! -d "$old" ]; then
    mkdir -p "$old.tmp" && git archive 7e3e462 | tar -x -C "$old.tmp" && mv "$old.tmp" "$old"
fi
(cd "$old" && python3 tools/train_eval.py play --no-network --games 15000 --nodes 1500 --seed 11 --data "$out/self-11.npz") &
first=$!
python3 tools/train_eval.py play-teacher --teacher "$teacher" --games 12000 --teacher-nodes 3000 --seed 21 --data "$out/fsf-21.npz"
wait "$first"
(cd "$old" && python3 tools/train_eval.py play --captures --games 13000 --nodes 1500 --seed 31 --data "$out/self-31-captures.npz") &
second=$!
python3 tools/train_eval.py play-teacher --teacher "$teacher" --games 12000 --teacher-nodes 3000 --seed 22 --data "$out/fsf-22.npz"
wait "$second"
python3 tools/train_eval.py play-teacher --teacher "$teacher" --games 12000 --teacher-nodes 3000 --seed 23 --data "$out/fsf-23.npz" &
third=$!
python3 tools/train_eval.py play-teacher --captures --teacher "$teacher" --games 12000 --teacher-nodes 3000 --seed 31 --data "$out/fsf-31-captures.npz"
wait "$third"
python3 tools/train_network.py --data "$out/self-11.npz,$out/fsf-21.npz,$out/fsf-22.npz,$out/fsf-23.npz,$out/self-31-captures.npz,$out/fsf-31-captures.npz"
