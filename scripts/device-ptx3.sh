#!/bin/sh
# The PTX backend against CUDA C on the step-5 and Hopper bf16 GEMMs and RMSNorm (issue 13: the
# cold compile under 300 ms with kernels as fast as NVRTC's), one GPU, about 45 s on an H200
# after `make all tests`.  The PTX path (CUTEC_CODEGEN=ptx: IR straight to PTX, the toolkit's
# ptxas binary) runs with its three forms on, the default since ptx3's final pass (session 34:
# CUTEC_PTX_LATE, CUTEC_PTX_ELSE, CUTEC_PTX_SUMS; their figures are in bench/RESULTS.md, ptx3;
# scripts37 trimmed their timings from this pass).  scripts/device-ptxall.sh times the other
# kernels the same way; between them they decide `ptx_by_default` (src/backend/ptx.c).
# Steps:
#  1. on the GPU against references FIRST: cuda_c_gpu_test on the PTX module (CVT pairs,
#     shuffles, 64-bit division, bit for bit), then the Hopper and step-5 GEMMs (beta 0.5, odd
#     sizes), RMSNorm, LayerNorm and softmax cold through the PTX path against float64
#     (`cutec run`);
#  2. speed, each path in its own process: the step-5 and Hopper bf16 GEMMs at 8192^3 (and
#     4096^3; tn, cuBLAS beside) and RMSNorm bf16 16384x4096 (% of a device copy, best of 2
#     rounds) through cuda (CUDA C, NVRTC) and ptx;
#  3. the cold compile of the step-5 bf16 GEMM on this host's CPU (CUDA C; PTX with the ptxas
#     binary and with the JIT), best of 2; RMSNorm's and the Hopper GEMM's registers.
# Decides (a FAIL or "wrong" in step 1 -> nothing changes, and that is a bug): the PTX path
# within 2% of CUDA C on all three (>= 0.98) and the cold compile (step 3, ptxas binary) under
# 300 ms -> `ptx_by_default = true` in src/backend/ptx.c, if device-ptxall.sh agrees on its
# kernels; else CUTEC_CODEGEN=ptx stays opt-in, the line names the slower kernels.
# Past BUDGET_S (90) the remaining steps print "skipped"; without a GPU the GPU steps skip.
# Logs in $OUT (default build/device-out).
. scripts/device-common.sh
log="$out/ptx3.log"
start=$(date +%s) budget=${BUDGET_S:-90}
export CUDA_CACHE_DISABLE=1 # the driver's own PTX cache: every JIT here is cold
gpu=1 bad=0
gemm_forms="cuda ptx"
rms_forms="cuda ptx"
# true (and says so) without a GPU or past the budget

# the environment of a form, for `env`
form_env()
{
    case $1 in
    cuda) echo "CUTEC_CODEGEN=cuda" ;;
    ptx) echo "CUTEC_CODEGEN=ptx" ;;
    esac
}

# `cutec run ARGS` cold through form $1: its verdict line; a wrong one counts
check()
{
    fm=$1
    shift
    # shellcheck disable=SC2046
    run_verdict $(form_env "$fm") -- "$@"
}

best_of() # file, phase: the CPU ms of the phase, best of the runs
{
    grep -F "$2" "$1" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/) { v = $i + 0; break }
                              if (min == "" || v < min) min = v } END { print min }'
}

# the figures of form $1: "step5 hopper rms" (TFLOP/s, TFLOP/s, best % of the copy)
figures()
{
    awk 'FILENAME ~ /gemm-/ && $1 == 8192 && $2 == "tensorop_smem" { s = $4 }
         FILENAME ~ /gemm-/ && $1 == 8192 && $2 == "hopper" { h = $4 }
         FILENAME ~ /rms-/ && $8 ~ /%/ { v = $8 + 0; if (v > r) r = v }
         END { printf "%s %s %s\n", s + 0, h + 0, r + 0 }' "$out/gemm-$1.txt" $([ -f "$out/rms-$1.txt" ] && echo "$out/rms-$1.txt")
}

decide()
{
    grep -qiE "wrong" "$out"/rms-*.txt "$out"/gemm-*.txt 2>/dev/null && bad=$((bad + 1))
    [ "$bad" = 0 ] || { echo "decides: nothing changes: $bad check(s) of step 1 or a bench row not verified (a bug)"; return; }
    for f in $gemm_forms; do
        [ -s "$out/gemm-$f.txt" ] || { echo "decides: nothing ($f's GEMM figures missing)"; return; }
    done
    for f in $rms_forms; do
        [ -s "$out/rms-$f.txt" ] || { echo "decides: nothing ($f's RMSNorm missing)"; return; }
        [ -f "$out/gemm-$f.txt" ] || : >"$out/gemm-$f.txt"
    done
    cold=$(awk -v t="$(best_of "$out/time-ptx.txt" "trace (")" -v e="$(best_of "$out/time-ptx.txt" "emit PTX")" \
        -v a="$(best_of "$out/time-ptx.txt" "ptxas (PTX to cubin)")" 'BEGIN { if (a == "") print 0; else print t + e + a }')
    { for f in $gemm_forms; do echo "$f $(figures "$f")"; done; } | awk -v cold="$cold" '
        { s[$1] = $2; h[$1] = $3; r[$1] = $4 }
        function q(a, b) { return b > 0 ? a / b : 0 }
        END {
            for (f in s) printf "%-7s step 5 %.1f, Hopper %.1f TFLOP/s, RMSNorm %.1f%% of the copy\n", f, s[f], h[f], r[f]
            bs = s["ptx"]; bh = h["ptx"]; br = r["ptx"]
            printf "the PTX backend against CUDA C: step 5 %.3f, Hopper %.3f, RMSNorm %.3f; cold compile of step 5 %.0f ms (ptxas binary)\n",
                q(bs, s["cuda"]), q(bh, h["cuda"]), q(br, r["cuda"]), cold
            slow = ""
            if (bs < 0.98 * s["cuda"]) slow = slow " step5"
            if (bh < 0.98 * h["cuda"]) slow = slow " hopper"
            if (br < 0.98 * r["cuda"]) slow = slow " rmsnorm"
            if (cold <= 0 || cold >= 300) slow = slow " cold-compile"
            if (slow == "") print "decides: the PTX backend within 2% of CUDA C here and its cold compile under 300 ms: ptx_by_default = true in src/backend/ptx.c if device-ptxall.sh agrees"
            else print "decides: CUTEC_CODEGEN=ptx stays opt-in (short of CUDA C by more than 2% or 300 ms:" slow ")" }'
}

{
    device_begin
    compile_gpu_head
    echo "== 1. against references first: cuda_c_gpu_test on the PTX module, then kernels cold"
    if ! gpu_late cuda_c_gpu_test; then
        CUTEC_CODEGEN=ptx timeout 30 build/tests/backend/cuda_c_gpu_test \
            >"$out/cuda_c_gpu_ptx3.log" 2>&1
        echo "$(head -n 1 "$out/cuda_c_gpu_ptx3.log" | cut -c1-120); $(tail -n 1 "$out/cuda_c_gpu_ptx3.log")"
        grep -m 8 -E "FAIL|divide:" "$out/cuda_c_gpu_ptx3.log" | cut -c1-300
        tail -n 1 "$out/cuda_c_gpu_ptx3.log" | grep -q " 0 failed" || bad=$((bad + 1))
    fi
    check cuda gemm --variant hopper --dtype bf16 --layout tn --m 1000 --n 1030 --k 520 --beta 0.5 --seed 7
    check ptx gemm --variant hopper --dtype bf16 --layout tn --m 1000 --n 1030 --k 520 --beta 0.5 --seed 7
    check ptx gemm --variant tensorop_smem --dtype bf16 --layout tn --m 1000 --n 1030 --k 520 --beta 0.5 --seed 7
    for k in rmsnorm layernorm softmax; do check ptx $k --dtype bf16 --shape 1000x4100; done
    echo "== 2. speed: the GEMMs through $gemm_forms; RMSNorm through $rms_forms"
    for f in $gemm_forms $rms_forms; do rm -f "$out/gemm-$f.txt" "$out/rms-$f.txt"; done
    for fm in $gemm_forms; do
        gpu_late bench gemm $fm && break
        echo "-- ($fm) step-5 and Hopper bf16 tn 4096, 8192 (8192 decides)"
        # shellcheck disable=SC2046
        env $(form_env $fm) timeout 30 build/cutec bench gemm --dtype bf16 --layout tn --sizes 4096,8192 \
            --variants tensorop_smem,hopper --iters 10 2>&1 | grep -E "^ *[0-9]|rror|refus" | tee "$out/gemm-$fm.txt"
    done
    for i in 1 2; do
        for fm in $rms_forms; do
            gpu_late bench rmsnorm $fm && break
            printf -- "-- (%s) RMSNorm bf16 16384x4096: " "$fm"
            # shellcheck disable=SC2046
            env $(form_env $fm) CUTEC_TORCH_ROWS=/dev/null timeout 15 build/cutec bench rmsnorm --dtype bf16 \
                --shape 16384x4096 --iters 20 2>&1 | grep -v "^#" | tail -n 1 | tee -a "$out/rms-$fm.txt"
        done
    done
    echo "== 3. cold compile of the step-5 bf16 GEMM, CPU ms, best of 2 (interleaved)"
    : >"$out/time-cuda.txt"; : >"$out/time-ptx.txt"
    for i in 1 2; do
        device_late cold compile round $i && break
        CUTEC_NO_CACHE=1 build/cutec compile gemm --dtype bf16 --variant tensorop_smem --arch sm_90a --emit time >>"$out/time-cuda.txt" 2>&1
        CUTEC_NO_CACHE=1 build/cutec compile gemm --dtype bf16 --variant tensorop_smem --arch sm_90a --codegen ptx --emit time >>"$out/time-ptx.txt" 2>&1
    done
    for k in "rmsnorm --dtype bf16 --shape 16384x4096" "gemm --dtype bf16 --layout tn --variant hopper --m 8192 --n 8192 --k 8192"; do
        device_late registers of $k && break
        # shellcheck disable=SC2086
        echo "registers, $k (PTX path): $(CUTEC_NO_CACHE=1 build/cutec compile $k --arch sm_90a --codegen ptx --emit time 2>&1 |
            grep -oE "[0-9]+ registers \((ptxas|cuLinkComplete)|^driver JIT: .*" | tr '\n' ' ' | cut -c1-400)"
    done
    echo "CPU: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
    echo "cuda c: trace $(best_of "$out/time-cuda.txt" "trace (") + emit $(best_of "$out/time-cuda.txt" "emit CUDA C") + NVRTC to cubin $(best_of "$out/time-cuda.txt" "NVRTC to cubin")"
    echo "ptx:    trace $(best_of "$out/time-ptx.txt" "trace (") + emit PTX $(best_of "$out/time-ptx.txt" "emit PTX") + the ptxas binary $(best_of "$out/time-ptx.txt" "ptxas (PTX to cubin)") (emit and the driver's JIT instead: $(best_of "$out/time-ptx.txt" "PTX backend to cubin, driver JIT"))"
    decide
    device_end
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 70
