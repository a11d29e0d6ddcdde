#!/bin/sh
# The GEMV pass of branch gemv8 on a GPU machine (issue 17), about 100 s on one H200 with the
# build.  gemv8's last change: NVFP4 two k-tiles ahead (cfg.ahead) is the library's where K
# spans four k-tiles or more and the blocks (16 rows) are 4 an SM or fewer, from the mid pass
# (2026-11-27 13:34: (7168,16384,1) 70.3 / 70.4% of the copy against 68.1 / 68.4% a k-tile
# at a time, the form before).  What this pass decides: at (7168,16384,1) the library's
# (two ahead) against --tile-at-a-time 1 (the form before), twice, each beside a device copy
# of the same bytes in the same process: two ahead at least 1 point faster in both pairs ->
# it stays; else -> delete it (nvfp4.c's two_ahead_pays and blockscaled.c's rotation).
# First the library's NVFP4 on the GPU at odd sizes against float64 (two ahead: 4100 rows,
# a partial last warp, K with a tail; a k-tile at a time batched, 5.8 blocks an SM), then the
# pairs, then the figures of the unchanged forms (those past the budget skipped).  Logs in $OUT
# (default build/device-out); the log's tail is printed.  Past BUDGET_S (55) the remaining
# steps print "skipped".
. scripts/device-common.sh
log="$out/gemv8.log"
start=$(date +%s) budget=${BUDGET_S:-55} GEMV_TIMEOUT=20
{
    device_begin
    echo "== the library's NVFP4 on the GPU at odd sizes (every element against float64)"
    device_gemv_run --dtype nvfp4 --shape 4100x8256
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --batch 3
    echo "== (7168,16384,1): the library's (two k-tiles ahead), a k-tile at a time (before), twice"
    for i in 1 2; do
        device_gemv --dtype nvfp4 --shape 7168x16384 | tail -n 1
        device_gemv --dtype nvfp4 --shape 7168x16384 --tile-at-a-time 1 | tail -n 1
    done
    echo "== figures of the unchanged forms: NVFP4 (4096,7168,8), bf16 and f16 (the ring of 4)"
    device_gemv --dtype nvfp4 --shape 4096x7168 --batch 8 | tail -n 1
    device_gemv --dtype bf16 | tail -n 3
    device_gemv --dtype f16 | tail -n 3
    device_end
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 60
