#!/bin/sh
# The row-reduction pass of branch rows10 on a GPU machine (issue 16), under 100 s on an H200
# (the build included).  The mid pass (H200, 2026-11-27 13:36 UTC) decided rows10's last
# changes: LayerNorm's shifted sums the default where a block holds its row or part;
# cross-entropy's 16-value rows deleted; dim 0's 8 rows in flight in one launch only; the
# paired writes in one block's staged row only.  This pass times, first, the three defaults
# that no run has compared alone and two candidates, each beside the other form in one
# process (the device copy beside both), then records the changed ops beside PyTorch
# (a bench of one shape ~4-5 s; the records are the first to go past the budget):
#  1. the bf16 words in the norms' backward at long rows (default since rows10, never timed
#     without them): LayerNorm backward 1024x262144, RMSNorm backward 4096x32768, against
#     CUTEC_ROWS_WORDS=0.  Words 2 points slower -> leave them out of ops with column sums
#     (rows_compile.c's row_plan_forms); otherwise they stay;
#  2. dim 0's 8 rows in flight in one launch (bf16 sum 1024x262144, +3.0 points once) against
#     CUTEC_COLS_UNROLL=4: within 2 -> back to 4 (columns.c, the simpler form);
#  3. the paired writes on LayerNorm's staged row (4096x32768, with the words and the shifted
#     sums; measured alone only on RMSNorm there, +4.0) against CUTEC_ROWS_PAIRS=0: the chunk
#     loop 2 points faster -> pairs for RMSNorm only;
#  4. a candidate, opt-in (CUTEC_ROWS_TRIAL=1): cross-entropy's forward at 16384x4096 (64% of
#     the copy; softmax 97.7%) with the label's logit as a fourth sum of the reduction, not a
#     gather that waits for the label's load and then L2: 2 points faster -> make it the
#     default for the forward of rows held in registers (rows_compile.c, row_plan_forms);
#     otherwise delete it (cross_entropy.c's cross_entropy_masked, row_op.trial_form);
#  5. a candidate, opt-in (CUTEC_ROWS_TRIAL=1): the norms' backward at 1024x262144 with dw and
#     db by a pass of their own (the dx pass staging its parts as the forwards do; five
#     matrix passes for three) where the cluster's blocks keep them in shared memory
#     (LayerNorm 36.6%, RMSNorm 59.1% of the copy): 2 points faster -> make it the default
#     there (rows_call.c's own_pass), for that op; otherwise delete it;
#  6. LayerNorm forward and cross-entropy fwd+bwd at the issue's shapes, PyTorch eager beside
#     (figures for bench/RESULTS.md).
# Every bench checks sampled rows against float64 on the GPU before it times them (a "WRONG"
# line otherwise; counted at the end).  Each command has a time limit and prints line by
# line; no benchmark starts after $BUDGET seconds (default 75).  Logs under $OUT.
#   BUDGET=75 ITERS=10 sh scripts/device-rows10.sh
. scripts/device-common.sh
log="$out/rows10.log"
start=$(date +%s)
budget=${BUDGET:-75}
BENCH_TIMEOUT=20
old() { v=$1 && shift && echo "-- the other form ($v)" && (export "$v" CUTEC_TORCH_ROWS=/dev/null && bench_bf16 "$@"); }
{
    device_begin
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing timed"
    else
        rows_new layernorm --backward --shape 1024x262144
        old CUTEC_ROWS_WORDS=0 layernorm --backward --shape 1024x262144
        old CUTEC_ROWS_TRIAL=1 layernorm --backward --shape 1024x262144
        rows_new rmsnorm --backward --shape 4096x32768
        old CUTEC_ROWS_WORDS=0 rmsnorm --backward --shape 4096x32768
        rows_new rmsnorm --backward --shape 1024x262144
        old CUTEC_ROWS_TRIAL=1 rmsnorm --backward --shape 1024x262144
        rows_new sum --dim 0 --shape 1024x262144
        old CUTEC_COLS_UNROLL=4 sum --dim 0 --shape 1024x262144
        rows_new layernorm --shape 4096x32768
        old CUTEC_ROWS_PAIRS=0 layernorm --shape 4096x32768
        rows_new cross-entropy --shape 16384x4096
        old CUTEC_ROWS_TRIAL=1 cross-entropy --shape 16384x4096
        bench_bf16 layernorm
        bench_bf16 cross-entropy --backward --shape 4096x32768
        rows_new cross-entropy --backward --shape 8192x131072
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 120
