#!/bin/sh
# HISTORICAL (session 32): some forms this script times were measured and removed since (their
# environment variables or flags are gone); run now it times the default in their place.
# bench/RESULTS.md keeps what it measured.
# Issue 18, the Hopper forward (engineer attnf4, session 31; written compile-only, for the next
# GPU pass), on an sm_90 GPU: the new forms beside the default, each an opt-in read when the
# library compiles.  Each step under a timeout and started only while the run is inside its
# budget (BUDGET_S, default 150 s; a skipped step says so), every command's output
# line-buffered (stdbuf), so that a step its timeout kills still shows what it printed.  Most
# important first:
#   `cutec run attention` checks on the GPU against float64 at odd sizes: clusters of two
#   blocks with K and V multicast (CUTEC_ATTN_FWD_CLUSTER=2) with the lazy rescale
#   (CUTEC_ATTN_FWD_RESCALE=lazy) at d128 GQA (9 Q tiles: the grid rounded up to 10) and d256
#   f16 MQA; the lazy rescale with Q released at its last S (CUTEC_ATTN_FWD_QRELEASE=early) at
#   d128 causal GQA (the persistent grid, two Q stages); the lazy rescale with every fourth
#   exp2 by a polynomial on the FMA pipe (CUTEC_ATTN_FWD_EXP2_POLY=4) at d64 f16 (192-row
#   tiles on the persistent grid);
#   `cutec bench attention` (every row checked against float64), SDPA in the same run:
#   8x16x4096 d128 and 16x32x2048 d64, causal and not, the library's default (the old form of
#   every row below); then (SDPA not rerun: $CUTEC_TORCH_ATTENTION points at no script) d128
#   4096 in clusters of two; the lazy rescale at both shapes; d64 with every fourth exp2 by
#   the polynomial; Q released early at both shapes (its persistent rows: d64, d128 causal);
#   clusters with the lazy rescale at d128 4096; clusters with 128-key tiles (4096 keys: none
#   padded, against 128 of 4224 with 176); 2x16x16384 d128 in clusters (SDPA beside);
#   Nsight Compute's L2 throughput and SM clock of d128 4096, default and in clusters;
#   2x16x16384 d128 by default.  The last ones where the budget allows.
# Results go to $OUT (default build/device-out); the log's tail is printed.
. scripts/device-common.sh
log="$out/attnf4.log"
t0=$(date +%s)
budget=${BUDGET_S:-150}
nosdpa="CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py" # the rows of a variant: SDPA ran beside the default's
lazy="CUTEC_ATTN_FWD_RESCALE=lazy"
cl2="CUTEC_ATTN_FWD_CLUSTER=2"
poly="CUTEC_ATTN_FWD_EXP2_POLY=4"
early="CUTEC_ATTN_FWD_QRELEASE=early"
run="build/cutec run attention --variant hopper"
d128="--batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10"
d64="--batch 16 --heads 32 --seqlen 2048 --headdim 64 --iters 10"
long="--batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 4"
command -v ncu >/dev/null || PATH=$PATH:$(ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null | tail -n 1)
ncu="ncu --clock-control none --kernel-name-base function --kernel-name regex:_kernel_[0-9]+$ --launch-skip 2
 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis
 --metrics lts__t_bytes.sum.per_second,sm__cycles_elapsed.avg.per_second"
{
    device_stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 all 2>&1 | grep -E "error|warning" | head -20
    device_step 10 env $lazy $cl2 $run --batch 2 --heads 6 --kv-heads 3 --seqlen 1100 --headdim 128
    device_step 10 env $lazy $cl2 $run --batch 1 --heads 4 --kv-heads 1 --seqlen 1500 --headdim 256 --dtype f16
    device_step 10 env $lazy $early $run --batch 2 --heads 6 --kv-heads 3 --seqlen 1000 --headdim 128 --causal
    device_step 10 env $lazy $poly $run --batch 3 --heads 4 --seqlen 777 --headdim 64 --dtype f16
    device_step 30 build/cutec bench attention --iters 10
    device_step 14 env $nosdpa $cl2 build/cutec bench attention $d128
    device_step 28 env $nosdpa $lazy build/cutec bench attention --iters 10
    device_step 12 env $nosdpa $poly build/cutec bench attention $d64
    device_step 28 env $nosdpa $early build/cutec bench attention --iters 10
    device_step 14 env $nosdpa $cl2 $lazy build/cutec bench attention $d128
    device_step 14 env $nosdpa $cl2 build/cutec bench attention $d128 --block-n 128
    device_step 26 env $cl2 build/cutec bench attention $long
    # why: L2's throughput and the SM clock of d128 4096 by default and in clusters (Nsight Compute)
    for v in default cluster; do
        e=$nosdpa && [ $v = cluster ] && e="$nosdpa $cl2"
        device_step 25 env $e $ncu build/cutec bench attention --batch 8 --heads 16 --seqlen 4096 --headdim 128 \
            --iters 3 >"$out/ncu-$v.txt"
        echo "-- ncu, $v:" && grep -E "^==|rror|ERR|Duration|Throughput|lts__t_bytes|cycles_elapsed|SM Frequency" "$out/ncu-$v.txt" | head -14
    done
    device_step 22 env $nosdpa build/cutec bench attention $long
    device_stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 80 "$log"
