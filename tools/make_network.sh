#!/bin/sh
# Rebuild engine/eval_network.npz from scratch (docs/search.md, "Evaluation network" and the
# nineteenth and twentieth sessions).  All the data are games of the master build against
# itself, refereed by our rules, so our engine's history does not enter:
#   - one game at 6,000 nodes a move from each of 29,505 positions of our matches against it
#     (tools/data/network-starts.fen.gz, 13,489 positions, and network-starts-2.fen.gz,
#     16,016 more), each file played in two halves side by side (about 80 minutes);
#   - 4,800 games at 15,000 nodes a move from random openings (about 40 minutes);
# then a 64-unit network is fitted from random weights on the 1,158,830 positions
# (40 epochs, about 12 minutes).  Two cores in all.
#
#   tools/make_network.sh PATH/fairy-stockfish-c19b5f6c [OUTDIR]
#
# The data files go to OUTDIR (default artifacts/network-data); the network replaces
# engine/eval_network.npz (atomically).
set -eu
teacher=${1:?usage: tools/make_network.sh PATH/fairy-stockfish-c19b5f6c [OUTDIR]}
teacher=$(cd "$(dirname "$teacher")" && pwd)/$(basename "$teacher")
cd "$(dirname "$0")/.."
out=${2:-artifacts/network-data}
mkdir -p "$out"
out=$(cd "$out" && pwd)

play_starts() {  # play_starts FEN-FILE DATA-FILE: one game of the master build from each position
    python3 tools/train_eval.py play-teacher --captures --teacher "$teacher" --starts "$1" --games 100000 \
        --teacher-nodes 6000 --data "$2"
}
gunzip -c tools/data/network-starts.fen.gz | awk 'NR % 2 == 1' > "$out/starts-1a.fen"
gunzip -c tools/data/network-starts.fen.gz | awk 'NR % 2 == 0' > "$out/starts-1b.fen"
half=$(( $(gunzip -c tools/data/network-starts-2.fen.gz | wc -l) / 2 ))
gunzip -c tools/data/network-starts-2.fen.gz | awk -v half="$half" 'NR <= half' > "$out/starts-2a.fen"
gunzip -c tools/data/network-starts-2.fen.gz | awk -v half="$half" 'NR > half' > "$out/starts-2b.fen"
for part in 1 2; do
    play_starts "$out/starts-${part}a.fen" "$out/starts-${part}a.npz" &
    first=$!
    play_starts "$out/starts-${part}b.fen" "$out/starts-${part}b.npz"
    wait "$first"
done
python3 tools/train_eval.py play-teacher --captures --teacher "$teacher" --games 2400 --teacher-nodes 15000 --seed 51 --data "$out/fsf15k-51.npz" &
second=$!
python3 tools/train_eval.py play-teacher --captures --teacher "$teacher" --games 2400 --teacher-nodes 15000 --seed 52 --data "$out/fsf15k-52.npz"
wait "$second"
python3 tools/train_network.py --hidden 64 --epochs 40 \
    --data "$out/starts-2a.npz,$out/starts-2b.npz,$out/starts-1a.npz,$out/starts-1b.npz,$out/fsf15k-51.npz,$out/fsf15k-52.npz"
