#!/bin/sh
# Branch attnb42's final pass on one H200 (issue 18: the Hopper attention backward, d128 bf16, at
# 110% of SDPA's at 8x16x4096 and 2x16x16384), under $BUDGET_S (50) s after the lead's `make all
# tests` (nothing is built here); log $OUT/attnb42.log.  No form to time: the mid pass deleted
# CUTEC_ATTN_BWD_PINGPONG (x0.988 at 2x16x16384 in turns).  This pass counts where the 16k
# call's time goes.  The early profile of session 42 (ncu, one cold launch, caches flushed, the
# kernels serialized; /work/notes/mid42/attnb42.txt) ran the fused dK/dV kernel at 2x16x16384 in
# 18,944 us at 1,811 MHz (34.3M cycles) and the call's three kernels in 19,116 us, where the
# benches' call takes 20.6-21.1 ms at 1,815-1,860 MHz (the lead's samples and the mid pass's:
# 38.3M cycles, +11%); prof39 saw +0.6% at 8x16x4096 (session 38's code, plain launches).
# Each shape: `cutec run attention --bwd --iters 10` under nsys (no serialization: the dependent
# launches overlap as in the bench), nvidia-smi sampling the clocks beside; then every call's
# kernels from nsys's GPU trace: per call (the first is the float64 check's, the next four the
# timing's warm-up and its sizing, then the ten timed, a call each: 2 ms spans), pre's, the dK/dV kernel's and post's durations, the gap
# between pre's end and the dK/dV kernel's start, post's end after the dK/dV kernel's, and the
# call's span from pre's start to post's end.  Its "decides:" line: where the call's extra time
# lies (the dK/dV kernel itself slower in the bench's calls than ncu's 18,944 us, or between
# the kernels), and whether the first (cold) call differs from the timed ones.
# (The mid pass's 16k process took 40 s for two forms; one form under nsys ~30 s: with the
# 50 s budget the 4096 trace runs only if 20 s are left; BUDGET_S=80 gives it room.)
#   BUDGET_S=50 sh scripts/device-attnb42.sh
. scripts/device-common.sh
log="$out/attnb42.log"
start=$(date +%s)
budget=${BUDGET_S:-50}
GPU=${CUDA_VISIBLE_DEVICES:-0}
GPU=${GPU%%,*}
FIELDS=clocks.sm,power.draw,clocks_event_reasons.active
nvidia-smi -i "$GPU" --query-gpu=$FIELDS --format=csv,noheader,nounits >/dev/null 2>&1 ||
    FIELDS=clocks.sm,power.draw,clocks_throttle_reasons.active
# sample_start NAME / sample_end NAME: nvidia-smi every 100 ms into $out/attnb42.NAME.smi; then the
# SM clock and power over the samples drawing 250 W or more (min / median / max) and how many
# had the software power cap (0x4) among the clocks' event reasons
sample_start() { nvidia-smi -i "$GPU" --query-gpu=$FIELDS --format=csv,noheader,nounits -lms 100 >"$out/attnb42.$1.smi" 2>&1 & smi=$!; }
sample_end()
{
    kill "$smi" 2>/dev/null
    wait "$smi" 2>/dev/null
    awk -F', *' -v n="$1" '
        $2 + 0 >= 250 { k++; c[k] = $1 + 0; p[k] = $2 + 0; r = $3; v = (r ~ /^0x/) ? hex(r) : r + 0; if (int(v / 4) % 2) cap++ }
        function hex(s,   i, d, x) { x = 0; s = tolower(substr(s, 3)); for (i = 1; i <= length(s); i++) { d = index("0123456789abcdef", substr(s, i, 1)) - 1; x = x * 16 + d } return x }
        function sort(a, m,   i, j, t) { for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } }
        END { if (!k) { print "   sampled GPU " g " (" n "): no sample at 250 W or more (" NR " lines)"; exit }
              sort(c, k); sort(p, k)
              printf "   sampled GPU %s (%s): %d samples at >= 250 W: SM %d / %d / %d MHz, %d / %d / %d W (min / median / max), the power cap in %d\n",
                  g, n, k, c[1], c[int((k + 1) / 2)], c[k], p[1], p[int((k + 1) / 2)], p[k], cap }' g="$GPU" "$out/attnb42.$1.smi"
}
# find_nsys: $nsys, the first of PATH's and the toolkit's; false, saying where it looked, if none
find_nsys()
{
    for c in "$(command -v nsys 2>/dev/null)" /usr/local/cuda/bin/nsys /usr/local/cuda*/bin/nsys \
        /opt/nvidia/nsight-systems/*/bin/nsys /usr/local/cuda*/nsight-systems*/bin/nsys; do
        [ -n "$c" ] && [ -x "$c" ] && nsys=$c && echo "nsys: $nsys ($("$nsys" --version 2>&1 | tail -n 1))" && return 0
    done
    echo "nsys: none on PATH, in /usr/local/cuda*/bin or /opt/nvidia/nsight-systems/*/bin"
    return 1
}
# calls NAME CSV: the backward's calls from nsys's GPU trace (python3: the kernel names hold commas)
calls()
{
    python3 - "$1" "$2" <<'EOF'
import csv, statistics, sys
name, path = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(path)))
def col(r, *keys):
    for k in keys:
        if k in r and r[k] not in ("", None):
            return float(r[k])
    raise KeyError(keys)
ks = []
for r in rows:
    n = r.get("Name", "")
    kind = ("pre" if "pre_counts_kernel" in n or "pre_kernel" in n else "kv" if "dkdv_" in n
            else "post" if "post_wait_kernel" in n or "post_kernel" in n else None)
    if kind:
        s = col(r, "Start (ns)", "Start")
        ks.append((s, s + col(r, "Duration (ns)", "Duration"), kind))
ks.sort()
calls, cur = [], None
for s, e, k in ks:
    if k == "pre":
        cur = {"pre": (s, e)}
        calls.append(cur)
    elif cur is not None:
        cur[k] = (s, e)
calls = [c for c in calls if "kv" in c and "post" in c]
if not calls:
    print(f"   {name}: no call of pre, dK/dV and post kernels in the trace ({len(rows)} rows)")
    sys.exit(0)
us = lambda x: x / 1e3
out = []
for i, c in enumerate(calls):
    p, k, q = c["pre"], c["kv"], c["post"]
    out.append((us(p[1] - p[0]), us(k[0] - p[1]), us(k[1] - k[0]), us(q[1] - q[0]), us(q[1] - k[1]), us(q[1] - p[0])))
print(f"   {name}: {len(calls)} calls; us: pre, dK/dV start after pre's end, dK/dV, post, post's end after dK/dV's, the span")
for i, o in enumerate(out):
    if i < 5 or i >= len(out) - 2:
        print(f"   call {i + 1:2d}: " + "  ".join(f"{x:9.1f}" for x in o))
timed = out[5:] if len(out) > 5 else out
med = [statistics.median(x[j] for x in timed) for j in range(6)]
print(f"   {name} median of calls {len(out) - len(timed) + 1}..{len(out)}: " + "  ".join(f"{x:9.1f}" for x in med))
print(f"   {name} first call: dK/dV {out[0][2]:.1f} us, span {out[0][5]:.1f}; the timed: dK/dV {med[2]:.1f} us, span {med[5]:.1f}")
print(f"@{name} {out[0][2]:.1f} {med[2]:.1f} {med[5]:.1f} {med[1]:.1f} {med[4]:.1f}")
EOF
}
# traced NAME SECONDS ARGS: `cutec run attention --bwd --iters 10 ARGS` under nsys (and the
# clocks' sampler), then its calls
traced()
{
    name=$1 lim=$2
    shift 2
    left=$((budget - $(el)))
    [ "$left" -lt "$lim" ] && lim=$left
    if [ "$lim" -lt 20 ]; then
        echo "-- skipped (past BUDGET_S): $name"
        return
    fi
    echo "-- $name: nsys profile cutec run attention --bwd --headdim 128 --iters 10 $* (limit $lim s) $(el_s)"
    sample_start "$name"
    timeout "$lim" "$nsys" profile --trace=cuda --sample=none --cpuctxsw=none --force-overwrite=true \
        -o "$out/attnb42-$name" build/cutec run attention --bwd --headdim 128 --iters 10 "$@" >"$out/attnb42.$name" 2>&1
    sample_end "$name"
    grep -E "verified|FAILED|rror" "$out/attnb42.$name" | head -n 3
    rep="$out/attnb42-$name.nsys-rep"
    [ -f "$rep" ] || { echo "   $name: no report ($(tail -n 1 "$out/attnb42.$name"))"; return; }
    for r in cuda_gpu_trace gputrace; do
        timeout 30 "$nsys" stats --report "$r" --format csv --force-export=true -o "$out/attnb42-$name" "$rep" \
            >"$out/attnb42.$name.stats" 2>&1
        csv=$(find "$out" -maxdepth 1 -name "attnb42-${name}_*$r*.csv" | head -n 1)
        [ -n "$csv" ] && break
    done
    if [ -z "$csv" ]; then
        echo "   $name: nsys stats made no csv ($(tail -n 2 "$out/attnb42.$name.stats" | tr '\n' ' '))"
        return
    fi
    calls "$name" "$csv" | tee "$out/attnb42.$name.calls" | grep -v "^@"
    echo "   (at $(el) s)"
}
# decide: the rule's lines from the @ lines (NAME, the first call's dK/dV us, the timed calls'
# median dK/dV, their span, pre's end to the dK/dV kernel's start, post's end after the dK/dV's)
decide()
{
    cat "$out"/attnb42.*.calls 2>/dev/null | awk '/^@/ {
        sub(/^@/, ""); n++
        name = $1; first = $2; kv = $3; span = $4; gap = $5; tail = $6
        ncu = name == "2x16x16384" ? 18943.6 : 0
        printf "decides: the count at %s: the timed calls span %.1f us, the dK/dV kernel %.1f of it (pre to it %.1f, post after it %.1f); the first call'"'"'s dK/dV %.1f (the timed x%.3f of it)%s\n",
            name, span, kv, gap, tail, first, kv / first,
            ncu ? sprintf("; ncu'"'"'s cold launch 18,943.6: the bench'"'"'s dK/dV x%.3f of it, so the extra time lies %s", kv / ncu,
                          kv / ncu > 1.04 ? "in the dK/dV kernel itself" : "between the kernels") : "" }
        END { if (!n) print "decides: the count: no trace read (nothing to decide)" }'
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "decides: CUTEC_ATTN_BWD_PINGPONG: deleted at the mid pass (2x16x16384 in turns x0.988, behind in both rounds)"
        if find_nsys; then
            traced 2x16x16384 40 --batch 2 --heads 16 --seqlen 16384
            traced 8x16x4096 30 --batch 8 --heads 16 --seqlen 4096
        fi
        echo "== at $(el) s:"
        decide
    else
        echo "== no GPU here: nothing traced"
        echo "decides: CUTEC_ATTN_BWD_PINGPONG: deleted at the mid pass (2x16x16384 in turns x0.988, behind in both rounds)"
        echo "decides: the count: not run (no GPU)"
    fi
    device_end
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\)" "$log" | tail -n 60
