#!/bin/bash
# The master build's games against itself from random openings, on every core for a fixed
# time, for a many-core machine (27,700 games in three calls of 9.3 minutes on 16 cores).
#
#   tools/teacher_games.sh TEACHER SECONDS FIRST_SEED OUTDIR [JOBS] [PARTS]
#
# JOBS processes (default: the number of cores) each play runs of GAMES games (default 100)
# with `tools/train_eval.py play-teacher --captures` at NODES nodes a move (default 15000)
# under the rule set VARIANT (default antichess),
# process j's c-th run with seed FIRST_SEED + 100 j + c (at most 99 runs a process, so no
# seed is played twice), into OUTDIR/runs/.  A process starts
# another run only while the time left exceeds its longest run so far by a tenth, so that no
# run is cut off at SECONDS; a run still going then is stopped and leaves no file.  At the
# end the finished runs are merged into PARTS files (default 2), OUTDIR/part-K.npz
# (`train_eval.py merge`: a lent machine returns at most 8 files of 16 MiB each).
set -u
if [ $# -lt 4 ]; then
    sed -n '2,15p' "$0" >&2
    exit 2
fi
teacher=$1 seconds=$2 first_seed=$3 out=$4
jobs=${5:-$(nproc)} parts=${6:-2}
games=${GAMES:-100} nodes=${NODES:-15000} variant=${VARIANT:-antichess}
cd "$(dirname "$0")/.."
mkdir -p "$out/runs"
started=$(date +%s)
deadline=$((started + seconds))
python3 -c "from engine import Game; Game('$variant').legal_moves()"  # compile once, before the processes
for j in $(seq 1 "$jobs"); do
    (c=0 longest=0
     while :; do
         now=$(date +%s)
         if [ $c -gt 0 ] && [ $((now + longest + longest / 10)) -ge $deadline ]; then break; fi
         [ $c -ge 99 ] && break  # seed + 100 would be the next process's first seed
         [ "$now" -ge "$deadline" ] && break
         c=$((c + 1))
         seed=$((first_seed + 100 * j + c))
         timeout $((deadline - now)) python3 tools/train_eval.py play-teacher --variant "$variant" --captures --teacher "$teacher" \
             --games "$games" --teacher-nodes "$nodes" --seed "$seed" --data "$out/runs/$seed.npz" \
             >"$out/runs/$seed.log" 2>&1
         took=$(($(date +%s) - now))
         [ $took -gt $longest ] && longest=$took
     done) &
done
wait
runs=$(ls "$out"/runs/*.npz 2>/dev/null | sort)
count=$(echo "$runs" | grep -c . || true)
echo "$count runs finished in $(($(date +%s) - started)) s"
[ "$count" -gt 0 ] || exit 1
[ "$parts" -gt "$count" ] && parts=$count
status=0
for part in $(seq 1 "$parts"); do
    chosen=$(echo "$runs" | awk -v p="$parts" -v k="$part" '(NR - 1) % p == k - 1' | tr '\n' ',' | sed 's/,$//')
    python3 tools/train_eval.py merge --data "$chosen" --out "$out/part-$part.npz" || status=1
done
exit $status
