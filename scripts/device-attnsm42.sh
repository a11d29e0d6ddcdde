#!/bin/sh
# Branch attnsm42's pass on one H200 (issue 18's two near misses), at most 50 s of GPU work after
# the lead's `make all tests` (nothing is built here); log $OUT/attnsm42.log.
#  1. Head dim 64, 16x32x2048 non-causal (asks 500 TFLOP/s; session 41's census 498.2): its
#     192-row tiles are 11 a head for 10.67 tiles' rows, so the last one's third warpgroup
#     computes rows past Sq only (3% of the GEMMs).  Forms, in turns in one process, each
#     checked against float64 first (`cutec run attention --turns`): the default; wgu
#     (CUTEC_WGMMA_DESC=stage CUTEC_ATTN_FWD_WGU=1: session 39's uniform warpgroup index, 454 ->
#     420 instructions a key tile at d64, never timed there); wgu+skip (CUTEC_ATTN_FWD_SKIP=1:
#     a warpgroup with no row inside Sq takes its turns and releases its stages, computing
#     nothing, and a head's Q tiles rotated on the persistent grid so that the short tiles
#     spread over the blocks; alone it spills 168 bytes at d64, with wgu none).  Predicted:
#     wgu within 1% either way (d128 x0.993 / x1.010, d256 x1.013); skip on top of it +1.6%
#     (a model: the last block's 43 long tiles -> 42.31, a short tile 0.77 of a long one).
#  2. Decode 8x32x32768 d128, 32 KV heads (asks SDPA's speed; census 99.6%): the combine as a
#     programmatic dependent launch (CUTEC_ATTN_DECODE_PDL=1), and the split kernel too (=2,
#     under the last call's combine) against the default in turns in one process (checked
#     first); then the default beside SDPA and the device copy (`cutec bench`); then K and V
#     laid out as SDPA's bench lays them, each head's keys together (`--kv-layout bhsd`, the
#     same kernel: what the layout alone is worth).  Predicted: PDL
#     +0.2-0.5% (the combine's launch and start, a few us of ~960); bhsd unknown (the bshd
#     blocks read 256-byte rows 8 KB apart, SDPA's bench reads each head's 8 MB in order).
#  3. d64 beside SDPA (the default), if the budget leaves room.
# The rules (ratio = form / default, and skip's also / wgu; each round's pair, a round's turns
# in reverse in the next): mean >= 1.005 with every round >= 1 -> "make default"; mean < 0.995
# -> "delete"; else "keep opt-in (within noise)"; a FAILED check or a failed run -> "delete
# (WRONG)".  Decode against SDPA: >= 102% "met with margin", >= 100% "met (within noise)".
# A step starts only where its limit (25, 25, 22, 15, 15 s) still fits in $BUDGET (50) s:
# BUDGET=75 runs all five; the first three (the decisions and SDPA) fit in 50 when each
# takes about its expected 12-16 s.
#   BUDGET=50 ITERS=10 sh scripts/device-attnsm42.sh
. scripts/device-common.sh
log="$out/attnsm42.log"
t0=$(date +%s)
budget=${BUDGET:-50}
D64="--variant hopper --headdim 64 --batch 16 --heads 32 --seqlen 2048 --iters $iters"
DEC="--decode --batch 8 --heads 32 --kv-heads 32 --seqlen 32768 --headdim 128 --iters $iters"
WGU="CUTEC_WGMMA_DESC=stage,CUTEC_ATTN_FWD_WGU=1"
# figures FILE UNIT: "LABEL ROUND VALUE" of each turn line of a `run --turns` log (W: FAILED)
figures()
{
    awk -v u="$2" '/^turn [0-9]+ / { l = $3; sub(":$", "", l); v = ""
        for (i = 4; i <= NF; i++) if ($i == u) v = $(i - 1)
        if (/FAILED|failed/) v = "W"
        print l, $2, v }' "$1" 2>/dev/null
}
# decide NAME FILE UNIT LABEL [BASE]: the rule's line for form LABEL against form BASE (the
# default unless given) in FILE
decide()
{
    figures "$2" "$3" | awk -v f="$4" -v base="${5:-default}" -v name="$1" '
        { val[$1, $2] = $3; if ($2 > rounds) rounds = $2 }
        END {
            n = 0; lo = ""; s = ""; bad = 0
            for (r = 1; r <= rounds; r++) {
                a = val[base, r]; b = val[f, r]
                if (a == "W" || b == "W") bad = 1
                if (a == "" || b == "" || a == "W" || b == "W" || a <= 0) continue
                x = b / a; t += x; n++; s = s sprintf(" %.4f", x); if (lo == "" || x < lo) lo = x
            }
            if (bad) { print "decides: " name ": delete (WRONG: a check or a run failed)"; exit }
            if (!n) { print "decides: " name ": keep opt-in (not timed)"; exit }
            m = t / n
            v = m >= 1.005 && lo >= 1 ? "make default" : m < 0.995 ? "delete" : "keep opt-in (within noise)"
            printf "decides: %s: %s (x%.4f, rounds%s)\n", name, v, m, s }'
}
# (D64 and DEC split into words where they are used)
# shellcheck disable=SC2086
{
    device_gpu_head "attnsm42"
    echo "== 1. d64 16x32x2048 non-causal: default / wgu / wgu+skip in turns (each checked first)"
    device_step 25 build/cutec run attention $D64 --rounds 2 \
        --turns "$WGU/$WGU,CUTEC_ATTN_FWD_SKIP=1" | tee "$out/d64-turns.txt"
    echo "== 2. decode 8x32x32768 d128 MHA: default / PDL in turns (each checked first)"
    device_step 25 build/cutec run attention $DEC --rounds 2 --turns CUTEC_ATTN_DECODE_PDL=1/CUTEC_ATTN_DECODE_PDL=2 |
        tee "$out/dec-turns.txt"
    echo "== 2b. decode MHA beside SDPA and the copy (the default; bshd)"
    device_step 22 build/cutec bench attention $DEC | tee "$out/dec-bench.txt"
    echo "== 2c. decode MHA with K and V as SDPA's (bhsd), the same kernel, no SDPA"
    device_step 15 env CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py build/cutec bench attention $DEC --kv-layout bhsd |
        tee "$out/dec-bhsd.txt"
    echo "== 3. d64 beside SDPA (the default)"
    device_step 15 build/cutec bench attention $D64 | tee "$out/d64-bench.txt"
    device_stamp "done; clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    echo "== the figures"
    echo "d64 (TFLOP/s, label round value):"
    figures "$out/d64-turns.txt" TFLOP/s | sed 's/^/   /'
    echo "decode (GB/s of K and V):"
    figures "$out/dec-turns.txt" GB/s | sed 's/^/   /'
    echo "decode beside SDPA: $(grep -E '^decode' "$out/dec-bench.txt" 2>/dev/null | tr -s ' ')"
    echo "   (columns: ms, GB/s, copy GB/s, of copy, SDPA GB/s, of SDPA, rows checked)"
    echo "decode bhsd: $(grep -E '^decode' "$out/dec-bhsd.txt" 2>/dev/null | tr -s ' ')"
    echo "d64 beside SDPA: $(grep -E '^bf16' "$out/d64-bench.txt" 2>/dev/null | tr -s ' ' | tr '\n' ';')"
    if [ "$budget" -gt 0 ]; then
        decide "d64 wgu" "$out/d64-turns.txt" TFLOP/s "$WGU"
        decide "d64 wgu+skip" "$out/d64-turns.txt" TFLOP/s "$WGU,CUTEC_ATTN_FWD_SKIP=1"
        decide "d64 skip on top of wgu" "$out/d64-turns.txt" TFLOP/s "$WGU,CUTEC_ATTN_FWD_SKIP=1" "$WGU"
        decide "decode PDL=1 (the combine)" "$out/dec-turns.txt" GB/s CUTEC_ATTN_DECODE_PDL=1
        decide "decode PDL=2 (both kernels)" "$out/dec-turns.txt" GB/s CUTEC_ATTN_DECODE_PDL=2
        sd=$(awk '/^decode/ && !/WRONG/ { p = $(NF-1); sub("%", "", p); print p; exit }' "$out/dec-bench.txt" 2>/dev/null)
        awk -v p="$sd" 'BEGIN { if (p !~ /^[0-9.]+$/) print "decides: decode against SDPA: no figure";
            else printf "decides: decode against SDPA: %s%% of SDPA (the default, bshd): %s\n", p,
                p >= 102 ? "met with margin" : p >= 100 ? "met (within noise)" : "short" }'
    else
        echo "decides: d64 wgu: keep opt-in (no GPU)"
        echo "decides: d64 wgu+skip: keep opt-in (no GPU)"
        echo "decides: d64 skip on top of wgu: keep opt-in (no GPU)"
        echo "decides: decode PDL=1 (the combine): keep opt-in (no GPU)"
        echo "decides: decode PDL=2 (both kernels): keep opt-in (no GPU)"
    fi
    echo "== WRONG or FAILED lines: $(cat "$out"/d64-*.txt "$out"/dec-*.txt 2>/dev/null | grep -c 'WRONG\|FAILED')"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|  (allowed\)" "$log" | tail -n 90
