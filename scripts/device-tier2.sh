#!/bin/sh
# The tiered JIT's final tier sooner (branch tier2; docs/compile_time.md "Tiers"), one GPU,
# at most about 80 s on an H200 after `make all tests`.
# Two opt-in changes to the tiered compile (src/runtime/cuda_backend.c, src/runtime/tier.c):
#  - early: the final tier's NVRTC compile starts on a background worker before the first
#    tier's ptxas (CUTEC_TIER_EARLY=1), not after its module is loaded (0, the order since
#    the tier branch).  The mid pass of the tier branch (H200 host): step 5 first module 122
#    ms, NVRTC alone 399-434, final tier in after 685; Hopper 471, 657-745, 1,237.
#  - a pool: CUTEC_TIER_THREADS=N background workers a backend (one job per module; 0: the
#    CPUs less one, at most 4), not one, for programs that compile many kernels cold.
# Steps:
#  1. on the GPU against references FIRST, both ways: tier_gpu_test (a tiered function
#     right before and after its swap, the cache's one entry, four threads calling under
#     the swap, a failed background compile handed out once) as the defaults are and with
#     CUTEC_TIER_EARLY=1 CUTEC_TIER_THREADS=4; cuda_backend_test and thread_test tiered with
#     both; `cutec run` cold through tiers, early and pooled, of the GEMMs (float64 checked);
#  2. `cutec bench tiers --rounds 3 --size 4096`: step 5 and Hopper bf16, NVRTC only, then
#     tiered in the old order and early (alternating, best of 3: first module, final tier
#     in), the final tier's TFLOP/s and C bit for bit against NVRTC only; then four step-5
#     GEMMs cold in one runtime, 1 or 4 workers, early or not (first modules / all final,
#     best of 2).
# Decides (rules; a FAIL or "wrong" in step 1, or a final tier FAILED / NOT SWAPPED /
# DIFFERS, -> nothing changes, and that is a bug):
#  - early: its final tier in at most 0.9 of the old order's for step 5 and Hopper, and its
#    first module at most 1.1 of the old order's + 10 ms for both -> `tier_early_by_default
#    = true` in src/runtime/cuda_backend.c (one line); else it stays opt-in.
#  - the pool: four step-5 GEMMs all final with 4 workers (at the order decided above) at
#    most 0.85 of 1 worker's, first modules at most 1.1 of 1 worker's + 10 ms ->
#    `tier_threads_default = 0` (the CPUs less one, at most 4) in cuda_backend.c; else 1.
# Past BUDGET_S (80) the remaining steps print "skipped"; without a GPU the GPU steps skip.
# Logs in $OUT (default build/device-out).
. scripts/device-common.sh
log="$out/tier2.log"
start=$(date +%s) budget=${BUDGET_S:-80}
export CUDA_CACHE_DISABLE=1
gpu=1 bad=0
# `cutec run ARGS` cold through tiers: its verdict line; a wrong one counts
check() { run_verdict CUTEC_TIER=1 CUTEC_TIER_EARLY=1 CUTEC_TIER_THREADS=4 -- "$@"; }

decide()
{
    [ "$bad" = 0 ] || { echo "decides: nothing changes: $bad check(s) not verified (a bug)"; return; }
    grep -qE "FAILED|DIFFERS|NOT SWAPPED" "$out/bench-tiers2.txt" &&
        { echo "decides: nothing changes: a final tier failed, was not swapped in or differs (a bug)"; return; }
    awk '
        # the number after the last word key in line
        function after(line, key,   i, n, w, r) { r = -1; n = split(line, w, " "); for (i = 1; i < n; i++) if (w[i] == key) { gsub(/[,;]/, "", w[i + 1]); r = w[i + 1] + 0 } return r }
        /^step 5 +cold compile/ { sf = after($0, "module"); sl = after($0, "final"); se = after($0, "first"); sel = after($0, "in") }
        /^hopper +cold compile/ { hf = after($0, "module"); hl = after($0, "final"); he = after($0, "first"); hel = after($0, "in") }
        /^many / {
            m = $0; sub(/^.*all final: /, "", m); n = split(m, part, ";")
            for (i = 1; i <= n; i++) { split(part[i], w, ":"); k = w[1]; gsub(/^ +| +$/, "", k); split(w[2], v, "/"); first[k] = v[1] + 0; all[k] = v[2] + 0 }
        }
        END {
            printf "step 5: first module %s ms, final in %s (old order); early: first %s, final in %s\n", sf, sl, se, sel
            printf "hopper: first module %s ms, final in %s (old order); early: first %s, final in %s\n", hf, hl, he, hel
            early = sl > 0 && sel > 0 && sel <= 0.9 * sl && se <= 1.1 * sf + 10 && (hl <= 0 || (hel > 0 && hel <= 0.9 * hl && he <= 1.1 * hf + 10))
            if (early) print "decides: the final tier early: tier_early_by_default = true in src/runtime/cuda_backend.c (in at most 0.9 of the old order, first module no later than 1.1x + 10 ms)"
            else print "decides: early stays opt-in (CUTEC_TIER_EARLY=1): tier_early_by_default stays false (final tier not 10% sooner, or the first module later)"
            e = early ? "1" : "0"
            f1 = first["threads 1 early " e]; a1 = all["threads 1 early " e]; f4 = first["threads 4 early " e]; a4 = all["threads 4 early " e]
            printf "many (early %s): 1 worker first modules %s ms, all final %s; 4 workers %s, %s\n", e, f1, a1, f4, a4
            if (a1 > 0 && a4 > 0 && a4 <= 0.85 * a1 && f4 <= 1.1 * f1 + 10) print "decides: a pool: tier_threads_default = 0 (the CPUs less one, at most 4) in src/runtime/cuda_backend.c (all final at most 0.85 of one worker, first modules no later)"
            else print "decides: one worker stays the default: tier_threads_default = 1 (CUTEC_TIER_THREADS=N opt-in)"
        }' "$out/bench-tiers2.txt"
}

{
    device_begin
    compile_gpu_head
    echo "== 1. against references first (the defaults, then early with 4 workers)"
    gpu_test tier_gpu_test build/tests/runtime/tier_gpu_test
    gpu_test tier_gpu_test_early build/tests/runtime/tier_gpu_test CUTEC_TIER_EARLY=1 CUTEC_TIER_THREADS=4
    gpu_test cuda_backend_test build/tests/runtime/cuda_backend_test CUTEC_TIER_EARLY=1 CUTEC_TIER_THREADS=4
    gpu_test thread_test build/tests/jit/thread_test CUTEC_TIER=1 CUTEC_NO_CACHE=1
    gpu_test thread_test_early build/tests/jit/thread_test CUTEC_TIER=1 CUTEC_NO_CACHE=1 CUTEC_TIER_EARLY=1 CUTEC_TIER_THREADS=4
    check gemm --variant hopper --dtype bf16 --layout tn --m 1000 --n 1030 --k 520 --beta 0.5 --seed 7
    check gemm --variant tensorop_smem --dtype bf16 --layout tn --m 1000 --n 1030 --k 520 --beta 0.5 --seed 7
    check gemm --variant tensorop_smem --dtype f16 --out-dtype f32 --layout tn --m 1000 --n 1030 --k 520 --seed 7
    check rmsnorm --dtype bf16 --shape 1000x4100
    echo "== 2. cold compiles, the old order against early; 1 worker against 4 (cutec bench tiers)"
    : >"$out/bench-tiers2.txt"
    if ! gpu_late bench tiers; then
        timeout 65 stdbuf -oL -eL build/cutec bench tiers --rounds 3 --size 4096 2>&1 | tee "$out/bench-tiers2.txt"
    fi
    [ "$gpu" = 1 ] && decide
    device_end
} 2>&1 | tee "$log"
