#!/bin/sh
# Rebuild engine/eval_network.npz from scratch (docs/search.md, "Evaluation network"):
# self-play of the engine without its network, the master build's own games, then the fit.
# About 25 minutes on two cores, then 3 minutes of fitting.
#
#   tools/make_network.sh PATH/fairy-stockfish-c19b5f6c [OUTDIR]
set -eu
teacher=${1:?usage: tools/make_network.sh PATH/fairy-stockfish-c19b5f6c [OUTDIR]}
out=${2:-artifacts/network-data}
cd "$(dirname "$0")/.."
mkdir -p "$out"
python3 tools/train_eval.py play --no-network --games 15000 --nodes 1500 --seed 11 --data "$out/self-11.npz" &
self_play=$!
python3 tools/train_eval.py play-teacher --teacher "$teacher" --games 12000 --teacher-nodes 3000 --seed 21 --data "$out/fsf-21.npz"
wait "$self_play"
python3 tools/train_network.py --data "$out/self-11.npz,$out/fsf-21.npz"
