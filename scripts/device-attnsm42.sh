#!/bin/sh
# Branch attnsm42's decisions confirmed on one H200 (issue 18's two near misses), at most 50 s
# of GPU work after `make all tests` (nothing is built here); log $OUT/attnsm42.log.
# Session 42's passes (bench/RESULTS.md's attnsm42 section): d64 16x32x2048 non-causal with the
# warpgroup index uniform and idle warpgroups skipped (the default since the mid pass) 521.9 /
# 521.8 and 513.6 / 474.5 TFLOP/s against the kernel before's 502.3 / 466.8 and 500.0 / 463.1
# in turns; decode 8x32x32768 d128 MHA with 2 splits (the default since the final pass) 4,492
# / 4,487 GB/s against 3 splits' 4,426 / 4,423 in turns (x1.0147); the dependent launches
# (CUTEC_ATTN_DECODE_PDL=1, opt-in) x1.0020 and x1.0019.  This script:
#  1. Decode MHA beside SDPA and the copy (`cutec bench`, the default): the mark.
#  2. Decode MHA in turns (one process, each form checked against float64 first): the default
#     (2 splits) against the dependent launches on it.
#  3. Decode MHA with 3 splits forced (--splits 3, the default before) in turns with the
#     dependent launches (another process: the two processes' defaults compared beside).
#  4. d64 16x32x2048: the default against the kernel before (CUTEC_ATTN_FWD_WGU=0
#     CUTEC_ATTN_FWD_SKIP=0) and wgu alone (SKIP=0), in turns, checked first.
# The rules (ratio = form / default, each round's pair, a round's turns in reverse in the
# next): PDL: mean >= 1.005 with every round >= 1 -> "make default"; mean < 0.995 ->
# "delete"; else "keep opt-in (within noise)"; d64's old forms: "revert" where the old one wins
# so, "keep (confirmed)" where it loses so, else "keep (within noise)"; 2 against 3 splits
# (across processes, step 2's default over step 3's): the same words as d64's; decode against
# SDPA: >= 102% "met with margin", >= 100% "met (within noise)", else "short"; a FAILED check
# or a failed run: WRONG.  A step starts only where its limit (20, 14, 14, 16 s) still fits in
# $BUDGET (50) s; BUDGET=70 runs all four.
#   BUDGET=50 ITERS=10 sh scripts/device-attnsm42.sh
. scripts/device-common.sh
log="$out/attnsm42.log"
t0=$(date +%s)
budget=${BUDGET:-50}
DEC="--decode --batch 8 --heads 32 --kv-heads 32 --seqlen 32768 --headdim 128 --iters $iters"
D64="--variant hopper --headdim 64 --batch 16 --heads 32 --seqlen 2048 --iters $iters"
P=CUTEC_ATTN_DECODE_PDL=1
OLD=CUTEC_ATTN_FWD_WGU=0,CUTEC_ATTN_FWD_SKIP=0
WGU=CUTEC_ATTN_FWD_SKIP=0
CONFIRM="revert to the old form|keep the new default (confirmed)|keep the new default (within noise)"
# figures FILE UNIT: "LABEL ROUND VALUE" of each turn line of a `run --turns` log (W: FAILED)
figures()
{
    awk -v u="$2" '/^turn [0-9]+ / { l = $3; sub(":$", "", l); v = ""
        for (i = 4; i <= NF; i++) if ($i == u) v = $(i - 1)
        if (/FAILED|failed/) v = "W"
        print l, $2, v }' "$1" 2>/dev/null
}
# decide NAME FILE UNIT LABEL [BASE [WORDS]]: the rule's line for form LABEL against form BASE
# (the default unless given) in FILE; WORDS "win|lose|tie" name the three verdicts (a new
# form's unless given)
decide()
{
    figures "$2" "$3" | awk -v f="$4" -v base="${5:-default}" -v name="$1" \
        -v words="${6:-make default|delete|keep opt-in (within noise)}" '
        { val[$1, $2] = $3; if ($2 > rounds) rounds = $2 }
        END {
            n = 0; lo = ""; s = ""; bad = 0
            for (r = 1; r <= rounds; r++) {
                a = val[base, r]; b = val[f, r]
                if (a == "W" || b == "W") bad = 1
                if (a == "" || b == "" || a == "W" || b == "W" || a <= 0) continue
                x = b / a; t += x; n++; s = s sprintf(" %.4f", x); if (lo == "" || x < lo) lo = x
            }
            if (bad) { print "decides: " name ": WRONG (a check or a run failed): delete the form"; exit }
            split(words, w, "|")
            if (!n) { print "decides: " name ": not timed (as it is)"; exit }
            m = t / n
            v = m >= 1.005 && lo >= 1 ? w[1] : m < 0.995 ? w[2] : w[3]
            printf "decides: %s: %s (x%.4f, rounds%s)\n", name, v, m, s }'
}
# (DEC and D64 split into words where they are used)
# shellcheck disable=SC2086
{
    device_gpu_head "attnsm42 (confirm)"
    echo "== 1. decode 8x32x32768 d128 MHA beside SDPA and the copy (the default: 2 splits)"
    device_step 20 build/cutec bench attention $DEC | tee "$out/dec-bench.txt"
    echo "== 2. decode MHA: the default (2 splits) / PDL, in turns"
    device_step 14 build/cutec run attention $DEC --rounds 2 --turns "$P" | tee "$out/dec-turns.txt"
    echo "== 3. decode MHA, 3 splits forced (the default before) / PDL, in turns"
    device_step 14 build/cutec run attention $DEC --splits 3 --rounds 2 --turns "$P" | tee "$out/dec3-turns.txt"
    echo "== 4. d64 16x32x2048: the default (wgu + skip) / the kernel before / wgu alone"
    device_step 16 build/cutec run attention $D64 --rounds 2 --turns "$OLD/$WGU" | tee "$out/d64-turns.txt"
    device_stamp "done; clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    echo "== the figures (label round value)"
    for f in dec-turns:GB/s dec3-turns:GB/s d64-turns:TFLOP/s; do
        echo "${f%%:*}:"
        figures "$out/${f%%:*}.txt" "${f#*:}" | sed 's/^/   /'
    done
    echo "decode beside SDPA: $(grep -E '^decode' "$out/dec-bench.txt" 2>/dev/null | tr -s ' ')"
    echo "   (columns: ms, GB/s, copy GB/s, of copy, SDPA GB/s, of SDPA, rows checked)"
    if [ "$budget" -gt 0 ]; then
        decide "decode PDL on 2 splits" "$out/dec-turns.txt" GB/s "$P"
        decide "decode PDL on 3 splits" "$out/dec3-turns.txt" GB/s "$P"
        { figures "$out/dec-turns.txt" GB/s | awk '$1 == "default" { print "turn " $2 " default: x, " $3 " GB/s" }'
          figures "$out/dec3-turns.txt" GB/s | awk '$1 == "default" { print "turn " $2 " three: x, " $3 " GB/s" }'
        } >"$out/dec23-turns.txt"
        decide "decode 3 splits (the default before) against 2 (across processes)" "$out/dec23-turns.txt" GB/s \
            three default "$CONFIRM"
        decide "d64 the kernel before against the new default" "$out/d64-turns.txt" TFLOP/s "$OLD" default "$CONFIRM"
        decide "d64 wgu alone against the new default" "$out/d64-turns.txt" TFLOP/s "$WGU" default "$CONFIRM"
        sd=$(awk '/^decode/ && !/WRONG/ { p = $(NF-1); sub("%", "", p); print p; exit }' "$out/dec-bench.txt" 2>/dev/null)
        awk -v p="$sd" 'BEGIN { if (p !~ /^[0-9.]+$/) { print "decides: decode against SDPA: no figure"; exit }
            v = p >= 102 ? "met with margin" : p >= 100 ? "met (within noise)" : "short"
            printf "decides: decode against SDPA: %s%% of SDPA (the default): %s\n", p, v }'
    else
        echo "decides: every form: as it is (no GPU)"
    fi
    echo "== WRONG or FAILED lines: $(cat "$out"/d64-*.txt "$out"/dec-*.txt "$out"/dec3-*.txt 2>/dev/null | grep -c 'WRONG\|FAILED')"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|  (allowed\)" "$log" | tail -n 80
