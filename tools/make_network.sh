#!/bin/sh
# Rebuild engine/search/eval_network.npz from scratch (docs/search.md, "Evaluation network";
# docs/experiments.md, the network table): six data runs, two at a time (about 75
# minutes on two cores), then the fit (about 10 minutes); then the fine-tuning on the master
# build's games from real match positions (tools/data/network-starts.fen.gz, 13,489 positions
# of our games against it) and from random openings at 15,000 nodes (about 75 minutes more);
# then the master build's games from new random openings (7.3 core-hours) and a fine-tuning
# on those (about 10 minutes); then our own self-play with our own search's scores; then a
# 64-unit network on more of our own self-play; then that network on more of it again; last,
# on deeper self-play (16,000 nodes a move).
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
# engine_at REV: the engine of commit REV, exported once into $out/engine-REV; prints its path.
engine_at() {
    dir="$out/engine-$1"
    if [ ! -d "$dir" ]; then
        mkdir -p "$dir.tmp" && git archive "$1" | tar -x -C "$dir.tmp" && mv "$dir.tmp" "$dir"
    fi
    echo "$dir"
}
# self_play DIR NODES SEED:GAMES...: the engine in DIR plays itself at NODES nodes a move,
# one run per seed (every core, chunks of 100 games); each run's file is added to $data.
self_play() {
    engine=$1 nodes=$2
    shift 2
    for run in "$@"; do
        seed=${run%%:*} games=${run##*:}
        (cd "$engine" && python3 tools/train_eval.py play --captures --games "$games" --nodes "$nodes" --seed "$seed" \
            --workers "$(nproc)" --chunk 100 --data "$out/self-$seed.npz")
        data="$data${data:+,}$out/self-$seed.npz"
    done
}
old=$(engine_at 7e3e462)
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
python3 tools/train_network.py --data "$out/self-11.npz,$out/fsf-21.npz,$out/fsf-22.npz,$out/fsf-23.npz,$out/self-31-captures.npz,$out/fsf-31-captures.npz" \
    --out "$out/first.npz"
# Fine-tuning: the master build plays one game from each match position (the two halves side
# by side), and two runs at 15,000 nodes a move.
gunzip -c tools/data/network-starts.fen.gz | awk 'NR % 2 == 1' > "$out/starts-a.fen"
gunzip -c tools/data/network-starts.fen.gz | awk 'NR % 2 == 0' > "$out/starts-b.fen"
python3 tools/train_eval.py play-teacher --captures --teacher "$teacher" --starts "$out/starts-a.fen" --games 20000 --teacher-nodes 6000 --data "$out/starts-a.npz" &
fourth=$!
python3 tools/train_eval.py play-teacher --captures --teacher "$teacher" --starts "$out/starts-b.fen" --games 20000 --teacher-nodes 6000 --data "$out/starts-b.npz"
wait "$fourth"
python3 tools/train_eval.py play-teacher --captures --teacher "$teacher" --games 2400 --teacher-nodes 15000 --seed 51 --data "$out/fsf15k-51.npz" &
fifth=$!
python3 tools/train_eval.py play-teacher --captures --teacher "$teacher" --games 2400 --teacher-nodes 15000 --seed 52 --data "$out/fsf15k-52.npz"
wait "$fifth"
python3 tools/train_network.py --data "$out/starts-a.npz,$out/starts-b.npz,$out/fsf15k-51.npz,$out/fsf15k-52.npz" \
    --init "$out/first.npz" --epochs 30 --rate 1e-3 --out "$out/second.npz"
# Last: the master build's games from new random openings (three calls of
# tools/teacher_games.sh, 560 s each on 16 cores: 7.3 core-hours; the same core-time here on
# every core), then 20 epochs on them and the 15,000-node games.  The shipped network took
# this step from an earlier fit of the first input layout, with zero weights for the
# attacked-piece and offer inputs (engine/search/network.py loads a file of that first layout so);
# here those inputs are fitted from the first fit on.
seconds=$((560 * 16 / $(nproc)))
for first in 10000 20000 30000; do
    tools/teacher_games.sh "$teacher" "$seconds" "$first" "$out/random-$first" 16
done
python3 tools/train_network.py --data "$out/fsf15k-51.npz,$out/fsf15k-52.npz,$out/random-10000/part-1.npz,$out/random-10000/part-2.npz,$out/random-20000/part-1.npz,$out/random-20000/part-2.npz,$out/random-30000/part-1.npz,$out/random-30000/part-2.npz" \
    --init "$out/second.npz" --epochs 20 --rate 1e-3 --out "$out/third.npz"
# Last: labels from our own search.  The engine of d8c8764 with the network just made plays
# itself at 5,000 nodes a move in two processes (its own score is the teacher column); 15
# epochs with half the target its win chance (about 15 minutes of play on two cores).
self=$(engine_at d8c8764)
cp "$out/third.npz" "$self/engine/search/eval_network.npz"
(cd "$self" && python3 tools/train_eval.py play --captures --games 12000 --nodes 5000 --seed 401 \
    --workers 2 --chunk 100 --data "$out/self-401.npz")
python3 tools/train_network.py --data "$out/self-401.npz" --init "$out/third.npz" --epochs 15 --rate 1e-3 \
    --teacher-weight 0.5 --out "$out/fourth.npz"
# Last: 64 hidden units in 16-bit integers.  The engine of 8981bd9 with the fourth network
# plays itself at 6,000 nodes a move: 16,000 games (seed 402, about 21 minutes on two cores)
# and four runs of about 4,900 games (seeds 403-406; they were stopped after 8 minutes on 16
# cores, and a run keeps its leading chunks, so these game counts give the same data).  Then
# the fourth network widened to 64 units (the new ones start with zero output weights) and
# fitted 15 epochs, and 15 more from there.
self=$(engine_at 8981bd9)
cp "$out/fourth.npz" "$self/engine/search/eval_network.npz"
data=""
self_play "$self" 6000 402:16000 403:4900 404:4900 405:5100 406:4700
python3 tools/train_network.py --data "$data" --init "$out/fourth.npz" --hidden 64 --epochs 15 --rate 1e-3 \
    --teacher-weight 0.5 --out "$out/fifth.npz"
python3 tools/train_network.py --data "$data" --init "$out/fifth.npz" --epochs 15 --rate 1e-3 --teacher-weight 0.5 \
    --out "$out/sixth.npz"
# Last: more of our own self-play.  The engine of 9552d3d with the sixth network plays itself
# at 6,000 nodes a move, ten runs (seeds 407-416; they were stopped on a 16-core machine, and
# a run keeps its leading chunks, so these game counts give the same data: 48,600 games);
# then 15 epochs from the sixth network on those and the seed-402 games.
self=$(engine_at 9552d3d)
cp "$out/sixth.npz" "$self/engine/search/eval_network.npz"
data="$out/self-402.npz"
self_play "$self" 6000 407:6800 408:6800 409:6800 410:6500 411:6600 412:3000 413:3000 414:2900 415:3100 416:3100
python3 tools/train_network.py --data "$data" --init "$out/sixth.npz" --epochs 15 --rate 1e-3 --teacher-weight 0.5 \
    --out "$out/seventh.npz"
# Last: deeper self-play.  The engine of 256ad28 with the seventh network plays itself at
# 16,000 nodes a move, 12,000 games (seed 417, about 35 minutes on two cores); then 15 epochs
# from the seventh network on every self-play file so far.
self=$(engine_at 256ad28)
cp "$out/seventh.npz" "$self/engine/search/eval_network.npz"
self_play "$self" 16000 417:12000
python3 tools/train_network.py --data "$data" --init "$out/seventh.npz" --epochs 15 --rate 1e-3 --teacher-weight 0.5
