#!/bin/sh
# fp8 scaled GEMMs on a GPU (issue 15 item 5, issue 14; engineer fp8), under 4 minutes:
# build the library, the CLI and scaled_test; scaled_test on the GPU (its interpreter cases,
# then per-tensor and block scales at 1024x1000x1000 and 1021x1016x4000 against float64, amax
# over every element); `cutec run gemm --scale ...` at an odd size, every element against
# float64; then `cutec bench gemm` e4m3 -> bf16 (tn) with per-tensor scales (+ amax) at
# 4096^3 and 8192^3 and block scales at 4096x7168x16384 (and 4096^3), cuBLASLt (unscaled)
# and torch._scaled_mm (bench/torch_scaled_mm.py) beside; the wgmma ceiling (MMA=1); registers and
# spills of each form.  Logs go to $OUT (default build/device-out).
#   ITERS=10 sh scripts/device-fp8.sh
. scripts/device-common.sh
log="$out/fp8.log"
bench() { timeout 70 build/cutec bench gemm --dtype e4m3 --out-dtype bf16 --layout tn --variants hopper --iters "$iters" "$@" 2>&1 | grep -v "^# \(check\|time\|index\|  (allowed\)"; }
{
    device_head
    make -j16 build/cutec build/tests/kernels/gemm/scaled_test 2>&1 | grep -E "error|warning" | head -20
    TEST_TIMEOUT=90 device_tests kernels/gemm/scaled_test
    echo "== run gemm --variant hopper e4m3 -> bf16 1021x1016x4000 (tn): every element against float64"
    for s in "--scale tensor --amax --out-scale 0.5" "--scale block --amax" "--scale block --out-dtype f32 --beta 0.5"; do
        # shellcheck disable=SC2086
        echo "$s: $(timeout 30 build/cutec run gemm --variant hopper --dtype e4m3 --out-dtype bf16 --layout tnt --m 1021 --n 1016 --k 4000 $s 2>&1 | tail -n 3 | tr '\n' ' ')"
    done
    echo "== bench e4m3 -> bf16 tn, per-tensor scales (cuBLASLt unscaled; torch._scaled_mm default and fast accumulation)"
    bench --scale tensor --amax --sizes 4096,8192
    echo "== bench e4m3 -> bf16 tn, block scales (1x128 A, 128x128 B)"
    bench --scale block --sizes 4096x7168x16384,4096
    [ -n "${MMA:-}" ] && echo "== the wgmma ceiling" && timeout 30 build/cutec bench mma --dtypes wgmma 2>&1 | tail -n 8
    echo "== registers and spills (sm_90a): plain, per-tensor + amax + out scale, block, block + amax + out scale"
    for s in "" "--scale tensor --amax-out 1" "--scale block" "--scale block --amax-out 1"; do
        # shellcheck disable=SC2086
        echo "${s:-plain}: $(CUTEC_NO_CACHE=1 build/cutec compile gemm --dtype e4m3 --out-dtype bf16 --variant hopper --layout tn --arch sm_90a $s --emit usage 2>&1 | grep -E "registers|spill" | tr '\n' ' ')"
    done
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 80 "$log"
