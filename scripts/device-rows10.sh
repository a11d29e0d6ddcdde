#!/bin/sh
# The row-reduction pass of branch rows10 on a GPU machine (issue 16), under 150 s on an H200.
# rows10's candidates are opt-in until a GPU has timed them: CUTEC_ROWS_TRIAL=1 turns them all
# on (each acts on its own rows only), so each changed row runs twice here, the default first
# (PyTorch eager beside it), then the trial, in one process each, the device copy beside both:
#  - LayerNorm's forward by one reduction of (sum, squares) about the row's first h, where the
#    default takes two sums (the mean's, then the squares' about it): one cluster exchange at
#    1024x262144, one block barrier and one walk of the staged row at 4096x32768, one barrier
#    at 16384x4096 (layernorm.c's layernorm_fwd_shifted);
#  - cross-entropy's rows of 4096 held by 256 threads of 16 values, six blocks an SM (40
#    registers), not two rows of 128 threads at 32 values, three an SM (78): fwd+bwd and fwd;
#  - the reductions over dim 0 (cutec_reduce_cols) of 16-bit inputs with 8 rows' loads a thread
#    in flight, not 4 (columns.c); and the time of a call whose GPU work is a few
#    microseconds (dim 0 at 128x4096: two launches; softmax: one), the host's floor per call
#    (bf16 16384x4096, 134 MB, ran at 83.5% of the copy, 39 us: a fixed ~7-9 us against the
#    longer shapes, the second launch or the host).
# Then the rows the 13:07 pass did not reach (the norms' backward, cross-entropy's forward at
# the three shapes, beside PyTorch), and the paired write pass against the chunk loop
# (CUTEC_ROWS_PAIRS=0) on the norms' long rows, the default since rows10 with the bf16 words.
# What each pair decides: the trial at least 2 points of the copy faster on its rows -> make it
# the default there; within 2 or slower -> delete it.  Pairs: the chunk loop 2 points faster
# -> drop the pairs.
# Every bench checks its rows against float64 on the GPU first (a "WRONG" line otherwise).
# Every command has a time limit and prints line by line (stdbuf).  Stops starting benchmarks
# after $BUDGET seconds (default 125).  Logs under $OUT.
#   BUDGET=125 ITERS=10 sh scripts/device-rows10.sh
. scripts/device-common.sh
log="$out/rows10.log"
start=$(date +%s)
budget=${BUDGET:-125}
BENCH_TIMEOUT=25
trial() { echo "-- rows10's trial (CUTEC_ROWS_TRIAL=1)"; CUTEC_ROWS_TRIAL=1 CUTEC_TORCH_ROWS=/dev/null bench_bf16 "$@"; }
nopairs() { echo "-- the chunk loop (CUTEC_ROWS_PAIRS=0)"; CUTEC_ROWS_PAIRS=0 CUTEC_TORCH_ROWS=/dev/null bench_bf16 "$@"; }
{
    device_begin
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing timed"
    else
        bench_bf16 layernorm
        trial layernorm
        rows_new cross-entropy --backward --shape 16384x4096
        trial cross-entropy --backward --shape 16384x4096
        rows_new cross-entropy --shape 16384x4096
        trial cross-entropy --shape 16384x4096
        bench_bf16 sum --dim 0
        trial sum --dim 0
        # the host's floor: a call whose GPU work is a few microseconds (two launches, one)
        rows_new sum --dim 0 --shape 128x4096
        rows_new softmax --shape 128x4096
        # not timed on 2026-11-27 13:07
        bench_bf16 layernorm --backward
        bench_bf16 rmsnorm --backward
        bench_bf16 cross-entropy
        # the pairs against the chunk loop on the norms' long rows
        rows_new rmsnorm --shape 4096x32768
        nopairs rmsnorm --shape 4096x32768
        rows_new layernorm --shape 1024x262144
        nopairs layernorm --shape 1024x262144
        rows_new rmsnorm --shape 1024x262144
        nopairs rmsnorm --shape 1024x262144
    fi
    device_end
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 150
