#!/bin/sh
# Engineer cc3 (session 30): issues 13 and 15's cold compile (< 300 ms of CPU) of the step-5
# kernel (bf16 tensorop_smem) and of the Hopper GEMM's default configuration (bf16 tn).
# Within 150 s on an H200; each step under its own timeout, started only while the run is
# inside its budget (BUDGET_S, default 140); output line-buffered:
#   1. a cutec of the base commit ($BASE, default adbb48a: main before this branch) built
#      beside the tree's from `git archive` (the new emitter and NVRTC options against the
#      old, on the same host, in the same minute);
#   2. `CUTEC_NO_CACHE=1 cutec compile gemm ... --emit time`, old and new interleaved, three
#      runs of each kernel: the CPU ms of NVRTC to PTX, ptxas, and the whole NVRTC compile;
#   3. `cutec bench gemm` of both kernels against cuBLAS (the new build): the speed must not
#      drop (their SASS is the same instructions as before, compile-only).
# Logs under $OUT (default build/device-out).
. scripts/device-common.sh
log="$out/cc3.log"
t0=$(date +%s)
budget=${BUDGET_S:-140}
iters=${ITERS:-5}
base=${BASE:-adbb48a}
old=/tmp/cutec-cc3-base
build_old() {
    rm -rf "$old" && mkdir -p "$old" &&
        git archive "$base" | tar -x -C "$old" &&
        timeout 60 make -C "$old" -j16 build/cutec 2>&1 | grep -E "error" | head -5
    [ -x "$old/build/cutec" ] && echo "old cutec built ($(git log --oneline -1 "$base"))"
}
# one cold compile of kernel args "$@" by cutec binary $1: the CPU ms of each NVRTC phase
cold() {
    bin=$1 && shift
    if [ $(($(date +%s) - t0 + 8)) -gt "$budget" ]; then echo "== skipped (time): cold $bin $*"; return; fi
    echo "$(CUTEC_NO_CACHE=1 timeout 8 "$bin" compile gemm --arch sm_90a --emit time "$@" 2>&1 |
        grep -E "^(emit|NVRTC|ptxas)|own split" | tr -s ' ' | tr '\n' ';')"
}
step5="--dtype bf16 --variant tensorop_smem"
hopper="--dtype bf16 --layout tn"
{
    device_stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 build/cutec 2>&1 | grep -E "error|warning" | head -20
    echo "== 1. the base commit's cutec ($base)"
    build_old
    echo "== 2. cold compiles (CPU ms), old and new interleaved"
    for k in step5 hopper; do
        eval "args=\$$k"
        for _ in 1 2 3; do
            # shellcheck disable=SC2086
            [ -x "$old/build/cutec" ] && echo "$k old: $(cold "$old/build/cutec" $args)"
            # shellcheck disable=SC2086
            echo "$k new: $(cold build/cutec $args)"
        done
    done
    echo "== 3. the kernels' speed (the new build), cuBLAS beside"
    device_step 35 build/cutec bench gemm --dtype bf16 --layout tn --variants tensorop_smem --sizes 4096,8192 \
        --iters "$iters" | grep -E "^ *[0-9]|rror|refus|^=="
    device_step 30 build/cutec bench gemm --dtype bf16 --layout tn --variants hopper --sizes 4096,8192 \
        --iters "$iters" | grep -E "^ *[0-9]|rror|refus|^=="
    device_stamp "done"
} >"$log" 2>&1
tail -n 60 "$log"
