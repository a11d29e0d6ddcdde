#!/bin/sh
# Engineer cc3 (session 30): issues 13 and 15's cold compile (< 300 ms of CPU) of the step-5
# kernel (bf16 tensorop_smem) and of the Hopper GEMM's default configuration (bf16 tn).
# Within 150 s on an H200; each step under its own timeout, started only while the run is
# inside its budget (BUDGET_S, default 140); output line-buffered:
#   1. "old": a cutec of the tree with this branch's three files (the emitter's shared
#      stores, NVRTC's options, cute_tensor_ptr) as they were at $BASE (default adbb48a),
#      beside the tree's "new" (on the same host, in the same minute);
#   2. `CUTEC_NO_CACHE=1 cutec compile gemm ... --emit time`, old and new interleaved, five
#      runs of each kernel: the CPU ms of NVRTC to PTX, ptxas, and the whole NVRTC compile;
#   3. `cutec bench gemm` against cuBLAS: step 5 (new build; its SASS is unchanged), the
#      Hopper GEMM (coop and ping-pong) and the Hopper attention forward, old build and new
#      (their epilogues' address arithmetic changed: compile-only, the k-loops are the same).
# Logs under $OUT (default build/device-out).
. scripts/device-common.sh
log="$out/cc3.log"
t0=$(date +%s)
budget=${BUDGET_S:-140}
iters=${ITERS:-5}
base=${BASE:-adbb48a}
old=/tmp/cutec-cc3-base
# the tree as it is but for this branch's three files as they were at $base: the cuts alone,
# whatever else the tree has changed (`git archive` is no help: the device copy's git
# metadata can be stale)
mine="src/backend/cuda_c_mem.c src/backend/nvrtc.c src/tensor/access.c"
build_old() {
    rm -rf "$old" && mkdir -p "$old" && cp -r Makefile include src tests "$old"/ || return
    for f in $mine; do git show "$base:$f" > "$old/$f" || return; done
    timeout 60 make -C "$old" -j16 build/cutec 2>&1 | grep -E "error" | head -5
    [ -x "$old/build/cutec" ] && echo "old cutec built (the tree with $mine of $base)"
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
    echo "== 1. the old cutec (the tree, $mine of $base)"
    build_old
    echo "== 2. cold compiles (CPU ms), old and new interleaved"
    for k in step5 hopper; do
        eval "args=\$$k"
        for _ in 1 2 3 4 5; do
            # shellcheck disable=SC2086
            [ -x "$old/build/cutec" ] && echo "$k old: $(cold "$old/build/cutec" $args)"
            # shellcheck disable=SC2086
            echo "$k new: $(cold build/cutec $args)"
        done
    done
    echo "== 3. the kernels' speed, cuBLAS beside: step 5 (its SASS is the same), then the kernels whose"
    echo "==    epilogue addresses changed (cute_tensor_ptr), old build and new"
    device_step 30 build/cutec bench gemm --dtype bf16 --layout tn --variants tensorop_smem --sizes 4096,8192 \
        --iters "$iters" | grep -E "^ *[0-9]|rror|refus|^=="
    for bin in "$old/build/cutec" build/cutec; do
        [ -x "$bin" ] || continue
        echo "-- $bin"
        for s in coop pingpong; do
            device_step 16 "$bin" bench gemm --dtype bf16 --layout tn --variants hopper --schedule $s --sizes 4096,8192 \
                --iters "$iters" | grep -E "^ *[0-9]|rror|refus|^=="
        done
        device_step 14 "$bin" bench attention --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters "$iters"
    done
    device_stamp "done"
} >"$log" 2>&1
tail -n 60 "$log"
