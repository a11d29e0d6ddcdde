#!/bin/sh
# One pass over what sessions 25-26 built and never ran on a GPU, on a two-GPU host
# (nvidia-h200-x2), the two cards in parallel lanes so one call covers it:
#   lane 0 (GPU 0): device-pingpong.sh, device-fp8.sh, device-hopbwd.sh, attention decode
#   lane 1 (GPU 1): device-rows4.sh, device-gemv3.sh, device-tc80.sh (short), python overhead
# Each part's output in $OUT/<part>/, the lanes' transcripts in $OUT/lane0.txt, lane1.txt, and
# every part's logs in $OUT/pass.tgz.  `PART=tp sh scripts/device-pass27.sh` runs device-tp.sh alone
# (both GPUs), for a second call on the warm machine.
set -u
OUT=${OUT:-build/device-out}
W=/tmp/pass27 # the parts' logs: $OUT brings back at most 8 files
mkdir -p "$OUT" "$W"
start=$(date +%s)
el() { echo $(($(date +%s) - start)); }
part() # lane-time-limit name command...
{
    lim=$1 name=$2
    shift 2
    echo "==== $name at $(el) s"
    mkdir -p "$W/$name"
    OUT="$W/$name" timeout "$lim" "$@" 2>&1
    echo "==== $name done at $(el) s (rc $?)"
}
if [ "${PART:-}" = tp ]; then
    part 280 tp sh scripts/device-tp.sh | tee "$OUT/tp.txt"
    tar czf "$OUT/tp.tgz" -C "$W" .
    exit 0
fi
echo "== $(date -u '+%F %T') $(git log --oneline -1 2>/dev/null)"
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv
echo "== build"
make -j32 all tests 2>&1 | grep -E "error|warning" | head -20
echo "== built at $(el) s"
(
    export CUDA_VISIBLE_DEVICES=0
    part 150 pingpong env SHAPES=2048,4096,8192,8192x28672x4096 sh scripts/device-pingpong.sh
    part 100 fp8 sh scripts/device-fp8.sh
    part 100 hopbwd sh scripts/device-hopbwd.sh
    echo "==== decode at $(el) s"
    timeout 50 build/cutec bench attention --decode --iters 20 2>&1
    echo "==== attention fwd d128 causal (sanity against session 26) at $(el) s"
    timeout 40 build/cutec bench attention --variant hopper --batch 2 --heads 16 --seqlen 16384 --headdim 128 --causal --iters 5 2>&1 | tail -n 3
    echo "==== lane 0 done at $(el) s"
) >"$OUT/lane0.txt" 2>&1 &
(
    export CUDA_VISIBLE_DEVICES=1
    part 120 rows4 env BUDGET=100 sh scripts/device-rows4.sh
    part 100 gemv3 sh scripts/device-gemv3.sh
    part 140 tc80 env BUDGET_S=100 TOTAL_S=125 sh scripts/device-tc80.sh
    echo "==== python at $(el) s"
    mkdir -p "$W/python"
    OUT="$W/python" timeout 90 sh -c '. scripts/device-common.sh; device_python' 2>&1
    echo "==== lane 1 done at $(el) s"
) >"$OUT/lane1.txt" 2>&1 &
wait
nvidia-smi --query-gpu=index,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv
cp "$OUT"/lane*.txt "$W/" && tar czf "$OUT/pass.tgz" -C "$W" .
echo "== all done at $(el) s"
tail -n 60 "$OUT/lane0.txt"
tail -n 60 "$OUT/lane1.txt"
