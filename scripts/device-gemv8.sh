#!/bin/sh
# The GEMV pass of branch gemv8 on a GPU machine (issue 17), under 150 s on an H200.  Two
# opt-in candidates, each timed beside the library's default and a device copy of the same
# bytes (in the same process: `cutec bench gemv` prints the copy on every row):
#  - NVFP4's register form two k-tiles ahead (--ahead 2: 4 KB of A a warp in flight while a
#    k-tile's products run, 128 registers, 4 blocks an SM) against the default (a k-tile at a
#    time at (7168,16384,1) and (7168,2048,4), one k-tile ahead at (4096,7168,8)): decides
#    whether the library takes two ahead where its blocks are few an SM (the L = 1 shape ran
#    67.9% of the copy, the issue asks 80%);
#  - the ring holding A alone, x from global memory (--x-direct 1: 6 blocks an SM, not 4) for
#    bf16 and f16 against the ring with x (the default): decides whether the short rows
#    (16384x4096, 89.5%) gain from more blocks an SM.
# First each changed form on the GPU at odd sizes against float64 (and f16's new default,
# the ring of 4); then the benches in the order of what they decide.  Results in $OUT (default build/device-out); the log's tail is printed.
# Past BUDGET_S (95; the lead builds first) the remaining steps print "skipped".
. scripts/device-common.sh
log="$out/gemv8.log"
start=$(date +%s) budget=${BUDGET_S:-95} GEMV_TIMEOUT=20
{
    device_begin
    echo "== on the GPU at odd sizes (every element against float64)"
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --batch 3 --ahead 2
    device_gemv_run --dtype nvfp4 --shape 7000x3072 --ahead 2
    device_gemv_run --dtype bf16 --shape 16385x4096 --batch 2 --x-direct 1
    device_gemv_run --dtype f16 --shape 3000x6000 --batch 2
    echo "== bench gemv nvfp4: the library's, two k-tiles ahead"
    device_gemv --dtype nvfp4
    device_gemv --dtype nvfp4 --ahead 2 | tail -n 3
    echo "== bench gemv bf16: the library's (ring of 4 with x), the ring holding A alone"
    device_gemv --dtype bf16 | tail -n 3
    device_gemv --dtype bf16 --x-direct 1 | tail -n 3
    echo "== again (the run-to-run spread): nvfp4 at (7168,16384,1) both ways"
    device_gemv --dtype nvfp4 --shape 7168x16384 | tail -n 1
    device_gemv --dtype nvfp4 --shape 7168x16384 --ahead 2 | tail -n 1
    echo "== f16 through the ring holding A alone (its default, the ring with x, measured at 13:07)"
    device_gemv --dtype f16 --x-direct 1 | tail -n 3
    echo "== bf16 both ways again"
    device_gemv --dtype bf16 | tail -n 3
    device_gemv --dtype bf16 --x-direct 1 | tail -n 3
    device_end
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 100
