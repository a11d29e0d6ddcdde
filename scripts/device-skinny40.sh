#!/bin/sh
# The pass of branch skinny40 on a GPU machine (issue 17: f32's skinny GEMM at M = 64, N = K =
# 8192 asks 85% of the copy; session 38's final pass: 36.1%, mma.sync 3xTF32 by bits), at most
# 60 s on one H200 after `make all tests`.
# The count (bench/RESULTS.md, skinny40): 256 MiB of f32 A at the copy's ~4.1 TB/s is ~65 us;
# 8.6 GFLOP in 3xTF32 is 25.8 GFLOP of tf32: at mma.sync's ~316 TFLOP/s 82 us (80% of the
# copy at best), at wgmma's ~480 54 us.  The new form (wgmma.c, CUTEC_GEMV_WGMMA=1, opt-in):
# blocks of two warpgroups on 128 rows of A (one on 64 where the vectors are not a multiple of
# 32), A's fragments from global memory into registers by weak loads two k-tiles ahead (one
# past 64 vectors), split there (wgmma's A), X's k-tile split and staged in shared memory
# (wgmma's B), twelve wgmma a k-tile of 32 columns; =ahead3: three k-tiles ahead up to 64
# vectors (48 KB of A in flight an SM instead of 32: the mid pass's forms went by their bytes
# in flight).
# The mid pass (11:43 UTC): 61.2% of the copy at 64 vectors (mma.sync 35.9), but wrong in the
# blocks past A's last row, whose loop left a batch running while it wrote that batch's A
# registers again (the interpreter's wgmma reads them at once): such loops now wait for each
# batch.  So this pass checks the form against float64 on the GPU first (odd sizes, rows past
# M, K past the last k-tile, split-K ordered and atomic, 32 / 64 / 128 vectors), then times it
# and =ahead3 against the default at 8192x8192 in turns (64 vectors twice; 128 and 32 once, the
# form alone: mma.sync read 18.0 / 64.2 in the mid pass; a process each, beside a device copy
# of the same bytes), then the issue's other skinny shapes under the
# library's defaults (split-K's second kernel a dependent launch at any split count since the
# mid pass), torch.mm f32 at 64x8192x8192, ptxas's registers.
# The rules (points of the copy, 64 vectors, means of two turns): every check right and >= 2
# points over mma.sync -> "make default" (wgmma.c's gemv_wgmma: on sm_90 without the variable),
# wrong -> "keep opt-in", behind -> "delete"; =ahead3 ahead of =1 by >= 1 -> "its loads three
# k-tiles ahead" (wgmma.c's ahead), else delete it.
#   BUDGET=55 sh scripts/device-skinny40.sh
. scripts/device-common.sh
log="$out/skinny40.log"
start=$(date +%s)
budget=${BUDGET:-55}
GEMV_TIMEOUT=15
# wg FORM ARGS: `cutec run gemv --dtype f32 ARGS` under CUTEC_GEMV_WGMMA=FORM (checked against
# float64)
wg()
{
    f=$1
    shift
    device_late run "$@" && return
    echo "run [CUTEC_GEMV_WGMMA=$f] $*: $(CUTEC_GEMV_WGMMA=$f timeout 10 build/cutec run gemv --iters 5 --dtype f32 "$@" 2>&1 | tail -n 1)"
}
# tb NAME ENV ARGS: the bench row of f32 8192x8192 ARGS under CUTEC_GEMV_WGMMA=ENV, appended to
# $out/tb_NAME.rows
tb()
{
    name=$1 e=$2
    shift 2
    r=$(CUTEC_GEMV_WGMMA=$e device_gemv --dtype f32 --shape 8192x8192 "$@" | grep -E '%|failed|skipped' | tail -n 1)
    echo "$name [CUTEC_GEMV_WGMMA=$e]: $r"
    echo "$r" >>"$out/tb_$name.rows"
}
# pm NAME: the mean of NAME's rows' % of the copy ("W" if one is WRONG)
pm()
{
    a=$(sed -n 1p "$out/tb_$1.rows" 2>/dev/null) b=$(sed -n 2p "$out/tb_$1.rows" 2>/dev/null)
    case "$a$b" in *WRONG*|*failed*) echo W; return;; esac
    mean2 "$(copy_pct "$a")" "$(copy_pct "$b")"
}
ge() { awk -v a="$1" -v t="$2" 'BEGIN { exit !(a != "" && a !~ /W/ && a >= t) }'; }
{
    device_head
    rm -f "$out"/tb_*.rows
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing timed"
        echo "decides: f32 skinny GEMM on wgmma (CUTEC_GEMV_WGMMA): keep opt-in (no GPU)"
    else
        echo "== at $(el) s: the new form against float64 on the GPU"
        wg 1 --shape 1000x1000 --vectors 64
        wg 1 --shape 331x2052 --vectors 64 --splits 3
        wg 1 --shape 200x1004 --vectors 32 --reduction atomic --splits 2
        wg 1 --shape 130x4100 --vectors 128
        wg 1 --shape 4097x516 --vectors 48 --splits 2
        wg ahead3 --shape 1000x1000 --vectors 64
        wg ahead3 --shape 4097x516 --vectors 48 --splits 2
        grep -E "^run \[CUTEC_GEMV_WGMMA=1\]" "$log" | grep -q "FAILED\|rror\|WRONG\|cutec:\|skipped" && checked=no
        grep -cE "^run \[CUTEC_GEMV_WGMMA=1\].*verified" "$log" | grep -q "^5$" || checked=no
        grep -E "^run \[CUTEC_GEMV_WGMMA=ahead3\]" "$log" | grep -q "FAILED\|rror\|WRONG\|cutec:\|skipped" && checked3=no
        echo "== at $(el) s: 8192x8192 f32 (GB/s of A + X + Y; copy: those bytes D2D), in turns"
        for turn in 1 2; do
            tb lib 0 --vectors 64
            tb wg 1 --vectors 64
            tb a3 ahead3 --vectors 64
        done
        tb wg128 1 --vectors 128
        tb wg32 1 --vectors 32
        echo "== at $(el) s: the issue's other skinny shapes, the library's defaults (beside a copy of the same bytes)"
        for a in "bf16 4097x8191 3" "f32 4097x8191 3" "bf16 5x100000 3" "f32 5x100000 3"; do
            set -- $a
            echo "$1 $2 x$3: $(device_gemv --dtype $1 --shape $2 --vectors $3 | grep -E '%|failed|skipped' | tail -n 1)"
        done
        if device_late torch; then :; else
            echo "== at $(el) s: torch.mm f32 64x8192x8192"
            timeout 15 python3 -c '
import sys; sys.path.insert(0, "bench")
import torch
from torch_timing import median_ms
A = torch.rand(64, 8192, device="cuda") * 4 - 2; B = torch.rand(8192, 8192, device="cuda") * 4 - 2
ms = median_ms(lambda: torch.mm(A, B.t()))
print(f"torch.mm float32 64x8192x8192: {ms:.4f} ms {(64 * 8192 + 8192 * 8192 + 64 * 8192) * 4 / ms / 1e6:.1f} GB/s")' 2>&1 | tail -n 2
        fi
        d=$(diff2 "$(pm wg)" "$(pm lib)")
        echo "== at $(el) s: % of the copy, 64 vectors, means of two turns: mma.sync $(pm lib), wgmma $(pm wg), three ahead $(pm a3)"
        if [ "${checked:-yes}" = no ]; then
            echo "decides: f32 skinny GEMM on wgmma (CUTEC_GEMV_WGMMA): keep opt-in (wrong or unchecked): a run above failed"
        elif [ -z "$d" ] || [ "$(pm wg)" = W ]; then
            echo "decides: f32 skinny GEMM on wgmma (CUTEC_GEMV_WGMMA): keep opt-in (not timed or wrong)"
        elif ge "$d" 2; then
            echo "decides: f32 skinny GEMM on wgmma (CUTEC_GEMV_WGMMA): make default ($(pm wg)% of the copy, $d points over mma.sync at 64 vectors): wgmma.c's gemv_wgmma without the variable"
        elif ! ge "$d" 0; then
            echo "decides: f32 skinny GEMM on wgmma (CUTEC_GEMV_WGMMA): delete ($d points at 64 vectors)"
        else
            echo "decides: f32 skinny GEMM on wgmma (CUTEC_GEMV_WGMMA): keep opt-in ($d points at 64 vectors)"
        fi
        d3=$(diff2 "$(pm a3)" "$(pm wg)")
        if [ "${checked3:-yes}" != no ] && [ "$(pm a3)" != W ] && ge "$d3" 1; then
            echo "decides: the wgmma form's loads three k-tiles ahead up to 64 vectors ($d3 points over two): wgmma.c's ahead"
        else
            echo "decides: CUTEC_GEMV_WGMMA=ahead3: delete ($d3 points over two ahead${checked3:+, wrong})"
        fi
    fi
    echo "== registers and spills (ptxas, sm_90a), the new form"
    for n in 32 64; do
        echo "f32 --vectors $n, ahead3: $(CUTEC_GEMV_WGMMA=ahead3 build/cutec compile gemv --dtype f32 --vectors $n --arch sm_90a --emit usage 2>&1 | grep -E 'registers|spill' | tr '\n' ' ')"
    done
    for n in 32 64 128; do
        echo "f32 --vectors $n: $(CUTEC_GEMV_WGMMA=1 build/cutec compile gemv --dtype f32 --vectors $n --arch sm_90a --emit usage 2>&1 | grep -E 'registers|spill' | tr '\n' ' ')"
    done
    echo "== the SASS's order of loads, barriers and wgmma (runs of each) at 64 vectors"
    for f in 1 ahead3; do
        echo "$f: $(CUTEC_GEMV_WGMMA=$f build/cutec compile gemv --dtype f32 --vectors 64 --arch sm_90a --emit sass 2>&1 |
            grep -oE 'LDG[.A-Z0-9]*|HGMMA|BAR\.SYNC|WARPGROUP\.[A-Z]*|cuobjdump' | uniq -c | tr -s ' \n' ' ' | cut -c1-600)"
    done
    device_end
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 60
