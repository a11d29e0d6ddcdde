#!/bin/sh
# The row-reduction pass of branch rows2 on a GPU machine (issue 16): scripts/device-redux.sh
# (build; the row kernels' and reductions' tests on the GPU; `cutec bench` of softmax,
# RMSNorm, LayerNorm and cross-entropy, forward and backward, bf16 at 16384x4096, 4096x32768
# and 1024x262144, each beside a device copy of as many bytes and PyTorch eager in the same
# run; registers and spills), then cross-entropy at the issue's 8192x131072.  What changed
# on rows2: rows of up to 100 KB of inputs are staged in shared memory by bulk copies (read
# once, 256-thread blocks, several an SM), the block reduction's second level is a butterfly,
# cross-entropy gathers its label's logit, LayerNorm takes one reduction; and bf16 GEMV
# with forced split-K (is its 84% the last wave's?).
# Logs under $OUT (default build/device-out), tarred as rows2-logs.tar.gz.  About 3.5 minutes
# on an H200.
set -u
out=${OUT:-build/device-out}
mkdir -p "$out"
OUT=$out sh scripts/device-redux.sh > /dev/null 2>&1
log="$out/rows2.log"
{
    echo "== bench cross-entropy at the issue's 8192x131072 (forward, forward+backward)"
    for dir in "" "--backward"; do
        # shellcheck disable=SC2086
        timeout 100 build/cutec bench cross-entropy $dir --dtype bf16 --shape 8192x131072 --iters "${ITERS:-10}" 2>&1
    done
    # bf16 GEMV at 84% of the copy: is it the last wave?  8192 rows of 16 KB are 3.1 waves of
    # the resident warps (a tenth-full fourth one, starved of loads in flight); split-K turns
    # them into 6.2 or 12.4.  The library's choice (splits 0) beside forced splits.
    echo "== bench gemv bf16: forced split-K against the library's choice"
    for run in 8192x8192:0 8192x8192:2 8192x8192:4 4096x16384:0 4096x16384:2; do
        timeout 30 build/cutec bench gemv --dtype bf16 --shape "${run%:*}" --splits "${run#*:}" --iters 20 2>&1 | tail -n 1
    done
} >"$log" 2>&1
tar -czf "$out/rows2-logs.tar.gz" -C "$out" $(cd "$out" && ls ./*.log) 2>/dev/null
grep -vE "^(make|cc |  CC|ar )" "$out/redux.log" | tail -n 70
cat "$log"
