#!/bin/sh
# Tiered compiles (branch tier, issues 13 and 15: a cold compile under 300 ms with no kernel
# slower), one GPU, about 60 s on an H200 after `make all tests`.
# A cold miss (CUTEC_TIER=1) returns the PTX backend's module (IR -> PTX -> the ptxas binary)
# and compiles NVRTC's on a background thread; the launches swap to it when it is loaded;
# the cache holds NVRTC's (src/runtime/tier.c, cuda_backend.c; docs/compile_time.md "Tiers").
# On the development machine (2 cores, load ~13, CPU ms, best of 5, `--emit time`): step 5
# NVRTC 323, NVRTC with ptxas -O2 213, the PTX path 182; Hopper NVRTC 510, -O2 522, PTX 314.
# Steps:
#  1. on the GPU against references FIRST: tier_gpu_test (a tiered function right before and
#     after its swap, the cache's one entry NVRTC's and loaded by a second backend, four
#     threads calling while the swap happens under them, a failed background compile handed
#     out while the first tier keeps running), cuda_backend_test
#     (launches through the swapped code pointer), thread_test tiered (8 threads call one
#     function while its final tier swaps in), `cutec run` cold through tiers (CUTEC_TIER=1
#     CUTEC_NO_CACHE=1) of the GEMMs, the norms, softmax and GELU (left to NVRTC at once);
#  2. `cutec bench tiers`: cold compiles of the step-5 and Hopper bf16 GEMMs on this host,
#     NVRTC only against tiered (first module, then final), best of 3; at 8192^3 the final
#     tier's TFLOP/s beside NVRTC-only (its C compared bit for bit) and the first tier's code
#     at -O3 and -O1; then the first module at CUTEC_TIER_OPT=1.
# Decides (rules; a FAIL or "wrong" in step 1, or a final tier not swapped or differing from
# NVRTC's, -> nothing changes, and that is a bug):
#  - tiers (at the first tier's level decided below): the first module under 300 ms (wall)
#    for step 5 and below NVRTC-only's for both GEMMs, and the final tier's output bit for
#    bit NVRTC-only's at a speed within 1% -> tiers stay the default (`tier_by_default =
#    true` in src/runtime/cuda_backend.c, since the early mid pass); else that line false.
#  - the first tier's ptxas level: -O1's first module 20% quicker than -O3's for step 5 and
#    its code >= 0.90 of NVRTC's for both GEMMs -> `tier_opt_default = 1` (cuda_backend.c,
#    one line; 1 since the early mid pass: 130 against 393 ms, code 0.905 / 0.991); else 3.
# Past BUDGET_S (85) the remaining steps print "skipped"; without a GPU the GPU steps skip.
# Logs in $OUT (default build/device-out).
. scripts/device-common.sh
log="$out/tier.log"
start=$(date +%s) budget=${BUDGET_S:-85}
export CUDA_CACHE_DISABLE=1
gpu=1 bad=0
# `cutec run ARGS` cold through tiers: its verdict line; a wrong one counts
check() { run_verdict CUTEC_TIER=1 -- "$@"; }

decide()
{
    [ "$bad" = 0 ] || { echo "decides: nothing changes: $bad check(s) not verified (a bug)"; return; }
    awk '
        FILENAME !~ /o1/ && /^step 5 +cold compile/ { for (i = 1; i <= NF; i++) { if ($i == "nvrtc") sn = $(i + 1); if ($i == "module") sf = $(i + 1) } }
        FILENAME !~ /o1/ && /^hopper +cold compile/ { for (i = 1; i <= NF; i++) { if ($i == "nvrtc") hn = $(i + 1); if ($i == "module") hf = $(i + 1) } }
        /^step 5 +[0-9]+\^3/ { s = $0 }
        /^hopper +[0-9]+\^3/ { h = $0 }
        FILENAME ~ /o1/ && /^step 5 +cold compile/ { for (i = 1; i <= NF; i++) { if ($i == "module") so1 = $(i + 1); if ($i == "nvrtc") sn1 = $(i + 1) } }
        FILENAME ~ /o1/ && /^hopper +cold compile/ { for (i = 1; i <= NF; i++) { if ($i == "module") hf1 = $(i + 1); if ($i == "nvrtc") hn1 = $(i + 1) } }
        function ratio(line, key,   i, n, w) { n = split(line, w, " "); for (i = 1; i < n; i++) if (w[i] == key) return w[i + 1] + 0; return 0 }
        function paren(line, key,   i, n, w) { n = split(line, w, " "); for (i = 1; i < n; i++) if (w[i] == key) { gsub(/[(),]/, "", w[i + 2]); return w[i + 2] + 0 } return 0 }
        END {
            fr_s = paren(s, "final"); fr_h = paren(h, "final")
            same = (s ~ /bit for bit/ && s ~ /swapped/ && s !~ /NOT SWAPPED/) && (h == "" || (h ~ /bit for bit/ && h !~ /NOT SWAPPED/))
            printf "step 5: nvrtc %s ms, tiered first module %s ms (-O1 %s), final tier %.3f of nvrtc; hopper: nvrtc %s, first module %s, final %.3f\n",
                sn, sf, so1, fr_s, hn, hf, fr_h
            if (!same) { print "decides: nothing changes: the final tier was not swapped in or its output differs from NVRTC-only (a bug)"; exit }
            o1 = paren(s, "-O1"); o1h = h == "" ? 1 : paren(h, "-O1")
            lvl1 = so1 > 0 && so1 < 0.8 * sf && o1 >= 0.90 && o1h >= 0.90
            if (lvl1) { sf = so1; sn = sn1 < sn ? sn1 : sn; if (hf1 > 0) hf = hf1; if (hn1 > 0 && hn1 < hn) hn = hn1 }
            ok = sf > 0 && sf < 300 && sf < sn && (hf == "" || hf < hn) && fr_s >= 0.99 && (h == "" || fr_h >= 0.99)
            if (ok) print "decides: tiers stay the default: tier_by_default = true in src/runtime/cuda_backend.c (step 5 first module under 300 ms, both below NVRTC-only, the final tier NVRTC-only bit for bit, within 1%)"
            else print "decides: tiers off: tier_by_default = false in src/runtime/cuda_backend.c (first module >= 300 ms or not below NVRTC-only, or the final tier slower by > 1%)"
            if (lvl1) print "decides: the first tier at ptxas -O1: tier_opt_default = 1 in src/runtime/cuda_backend.c (its first module 20% quicker, its code >= 0.90 of NVRTC)"
            else printf "decides: the first tier stays at -O3 (-O1: first module %s against %s ms, code %.3f / %.3f of NVRTC)\n", so1, sf, o1, o1h
        }' "$out/bench-tiers.txt" "$out/bench-tiers-o1.txt"
}

{
    device_begin
    compile_gpu_head
    echo "== 1. against references first"
    gpu_test tier_gpu_test build/tests/runtime/tier_gpu_test
    gpu_test cuda_backend_test build/tests/runtime/cuda_backend_test
    gpu_test thread_test build/tests/jit/thread_test CUTEC_TIER=1 CUTEC_NO_CACHE=1
    check gemm --variant hopper --dtype bf16 --layout tn --m 1000 --n 1030 --k 520 --beta 0.5 --seed 7
    check gemm --variant tensorop_smem --dtype bf16 --layout tn --m 1000 --n 1030 --k 520 --beta 0.5 --seed 7
    for k in rmsnorm layernorm softmax; do check $k --dtype bf16 --shape 1000x4100; done
    check elementwise --op gelu --dtype bf16 --shape 1000x4100
    echo "== 2. cold compiles and the final tier's speed (cutec bench tiers)"
    : >"$out/bench-tiers.txt"; : >"$out/bench-tiers-o1.txt"
    if ! gpu_late bench tiers; then
        CUTEC_TIER_OPT=3 timeout 60 stdbuf -oL -eL build/cutec bench tiers --rounds 3 --size 8192 2>&1 | tee "$out/bench-tiers.txt"
    fi
    if ! gpu_late bench tiers -O1; then
        CUTEC_TIER_OPT=1 timeout 25 stdbuf -oL -eL build/cutec bench tiers --rounds 3 --size 0 2>&1 | tee "$out/bench-tiers-o1.txt"
    fi
    grep -qE "FAILED|DIFFERS|NOT SWAPPED" "$out/bench-tiers.txt" && bad=$((bad + 1))
    echo "== 3. ptxas alone on the PTX backend's modules (wall ms, best of 2): threads inside ptxas (-split-compile 0)?"
    for k in "step5 --variant tensorop_smem" "hopper --variant hopper"; do
        set -- $k
        name=$1
        shift
        build/cutec compile gemm --dtype bf16 --layout tn --arch sm_90a "$@" --codegen ptx --emit ptx >"$out/$name.ptx" 2>/dev/null
        for o in "" "-split-compile 0"; do
            b=
            for i in 1 2; do
                t0=$(date +%s%N)
                # shellcheck disable=SC2086
                /usr/local/cuda/bin/ptxas -O3 -arch sm_90a $o "$out/$name.ptx" -o "$out/$name.cubin" 2>&1 | head -n 3
                t=$((($(date +%s%N) - t0) / 1000000))
                [ -z "$b" ] || [ "$t" -lt "$b" ] && b=$t
            done
            echo "ptxas $name ${o:-(plain)}: $b ms"
        done
    done
    [ "$gpu" = 1 ] && decide
    device_end
} 2>&1 | tee "$log"
