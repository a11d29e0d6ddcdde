#!/bin/sh
# Branch f32sk42's check of its defaults on one H200 (issue 17: f32's skinny GEMM at 8192x8192, 85% of the
# device copy and torch.mm's speed), under 50 s of GPU work after the lead's `make all tests`
# (nothing is built here); log $OUT/f32sk42.log.
# Branch f32sk42's passes (bench/RESULTS.md, f32sk42) made k pairs (f32's ring in blocks of two k
# groups, one split at 8192 rows), chains up to 8 vectors (f32's 3xTF32 products summed apart)
# and wgmma's A ring of 6 the only forms; its final pass (17:13-17:15 UTC) confirmed the chains'
# rule in turns (8 vectors 94.0 / 93.9% of the copy with, 92.9 / 92.7 without; 16 vectors 90.8 /
# 90.7 without, 89.0 / 89.0 with) and the variables were deleted. What this script does now: the
# defaults on the GPU against float64 (`cutec run gemv`, every element; odd sizes, split K
# ordered and atomic, a batch, the block past A's last row, the register form at 24 vectors,
# wgmma at 32 to 128), then 8192x8192 f32 at 8, 16, 64, 32, 128 and 24 vectors (% of a device
# copy of the same bytes, y checked against float64 first), each its own process. No step starts
# past $BUDGET (50) s; each process under 12 s. It decides: "WRONG" where a check or row is, else
# 85% met or not at 8, 16 and 64 vectors (torch.mm's time: the mid pass's).
#   BUDGET=50 sh scripts/device-f32sk42.sh
. scripts/device-common.sh
log="$out/f32sk42.log"
start=$(date +%s)
budget=${BUDGET:-50}
GEMV_TIMEOUT=12
tag=f32sk42
S=8192x8192
# meets NAME BAD PCT MS TORCH: "decides: NAME: ..." for one default row: WRONG, or 85% met or not
# and its time MS against torch.mm's TORCH
meets()
{
    awk -v f="decides: $1" -v bad="$2" -v a="$3" -v ms="$4" -v tm="$5" 'BEGIN {
        if (bad != "" || a ~ /W/) { print f ": WRONG"; exit }
        if (a == "") { print f ": not timed"; exit }
        printf "%s: %.2f%% of the copy, 85%%: %s; torch.mm: %s\n", f, a, (a >= 85 ? "met" : "not met"),
            (ms == "" || tm == "" ? "not timed" : sprintf("%.4f ms against %.4f, %.2fx", ms, tm, tm / ms)) }'
}
# torch_ms M: torch.mm's ms at M x 8192 x 8192, f32, TF32 off (the mid pass, 16:04-16:07 UTC, an
# H200 at 1980 MHz; scripts/device-census17.sh times it again beside the defaults)
torch_ms() { case $1 in 8) echo 0.1705 ;; 16) echo 0.1860 ;; 64) echo 0.2546 ;; esac; }
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "== the defaults on the GPU against float64 $(el_s)"
        gemv_check 1 - --shape 1000x2056 --vectors 8
        gemv_check 2 - --shape 1000x1000 --vectors 16 --splits 3
        gemv_check 3 - --shape 520x2056 --vectors 8 --splits 2 --reduction atomic
        gemv_check 4 - --shape 264x1040 --vectors 16 --batch 2
        gemv_check 5 - --shape 1000x1000 --vectors 24
        gemv_check 6 - --shape 1000x2056 --vectors 64
        gemv_check 7 - --shape 1024x1000 --vectors 64 --splits 2
        gemv_check 8 - --shape 1000x2056 --vectors 32 --splits 3
        gemv_check 9 - --shape 1024x2056 --vectors 128 --splits 2
        gemv_check 10 - --shape 520x2056 --vectors 48 --reduction atomic
        wait
        gemv_checked 1 2 3 4 5 || bad8=1
        gemv_checked 6 7 8 9 10 || bad64=1
        echo "== 8192x8192 f32, the defaults $(el_s)"
        gemv_pct 8 - && d8=$pct d8ms=$ms
        gemv_pct 16 - && d16=$pct d16ms=$ms
        gemv_pct 64 - && d64=$pct d64ms=$ms
        gemv_pct 32 - && d32=$pct
        gemv_pct 128 - && d128=$pct
        gemv_pct 24 - && d24=$pct
        echo "== at $(el) s: % of the copy, f32 $S: 8 vectors ${d8:-} (${d8ms:-?} ms), 16 ${d16:-} (${d16ms:-?} ms)," \
            "64 ${d64:-} (${d64ms:-?} ms), 32 ${d32:-}, 128 ${d128:-}, 24 ${d24:-}"
        meets "8 vectors" "${bad8:-}" "${d8:-}" "${d8ms:-}" "$(torch_ms 8)"
        meets "16 vectors" "${bad8:-}" "${d16:-}" "${d16ms:-}" "$(torch_ms 16)"
        meets "64 vectors" "${bad64:-}" "${d64:-}" "${d64ms:-}" "$(torch_ms 64)"
    else
        echo "== no GPU here: nothing timed"
        echo "decides: nothing timed (no GPU)"
    fi
    device_end
    echo "== WRONG lines: $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\)" "$log" | tail -n 120
