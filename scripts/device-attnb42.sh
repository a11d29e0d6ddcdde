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
# (The extra pass of 16:39 UTC looked for nsys and found none: nsys is not usable on these
# machines, it makes no report.)  So each shape's `cutec run attention --bwd --iters 10` runs under
# ncu, the dK/dV kernel's first six launches profiled with the caches and clocks left alone
# (--cache-control none: each launch in the state the calls before it left; ncu serializes the
# launches, as in the early profile): launch 1 is the float64 check's call (after the forward),
# 2-4 the timing's warm-up, 5 its sizing call, 6 the first timed one.  Printed a launch: its
# duration, SM clock, tensor pipe, issue, three stalls and L2 hits.  Its "decides:" line: whether
# the launches after the first take longer than it (the warm state; the bench times those), and
# how the profiled launches stand to the bench's 20.6-21.1 ms call (if they stay near 18.9 ms,
# the extra time lies outside what ncu sees of the kernel: the dependent launches' overlap, which
# ncu serializes, or the calls' host side).
# (The mid pass's 16k process took 40 s for two forms; one form under ncu ~30 s: with the 50 s
# budget the 4096 launches run only if 20 s are left; BUDGET_S=80 gives them room.)
#   BUDGET_S=50 sh scripts/device-attnb42.sh
. scripts/device-common.sh
log="$out/attnb42.log"
start=$(date +%s)
budget=${BUDGET_S:-50}
# find_ncu: $ncu
find_ncu()
{
    for c in "$(command -v ncu 2>/dev/null)" /usr/local/cuda/bin/ncu /usr/local/cuda*/bin/ncu \
        /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda*/nsight-compute*/ncu; do
        [ -n "$c" ] && [ -x "$c" ] && ncu=$c && echo "ncu: $ncu ($("$ncu" --version 2>&1 | tail -n 1))" && return 0
    done
    echo "ncu: none found"
    return 1
}
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,lts__t_sector_hit_rate.pct
# launches NAME SECONDS ARGS: the dK/dV kernel's first six launches of `cutec run attention --bwd`
# under ncu (caches and clocks left alone: each launch in the state the calls before left)
launches()
{
    name=$1 lim=$2
    shift 2
    left=$((budget - $(el)))
    [ "$left" -lt "$lim" ] && lim=$left
    if [ "$lim" -lt 20 ]; then
        echo "-- skipped (past BUDGET_S): $name"
        return
    fi
    echo "-- $name: ncu, the dK/dV kernel's launches 1-6 (limit $lim s) $(el_s)"
    timeout "$lim" "$ncu" --clock-control none --cache-control none --kernel-name regex:dkdv --launch-count 6 \
        --print-units base --metrics "$METRICS" build/cutec run attention --bwd --headdim 128 --iters 10 "$@" \
        >"$out/attnb42.$name.ncu" 2>&1
    awk '/dkdv.*Context/ { n++ }
         n && $1 ~ /^(gpu__time|sm__cycles|sm__pipe_tensor|smsp__issue|smsp__average|lts__t)/ { v[n, $1] = $NF }
         END { print "   launch        us      MHz  tensor%  issue%  barrier  long_sb   wait  L2hit%"
               for (i = 1; i <= n; i++) {
                   g = v[i, "gpu__time_duration.sum"]; gsub(/,/, "", g)
                   h = v[i, "sm__cycles_elapsed.avg.per_second"]; gsub(/,/, "", h)
                   printf "   %6d %9.1f %8.0f %8s %7s %8s %8s %6s %7s\n", i, g / 1000, h / 1e6,
                       v[i, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"],
                       v[i, "smsp__issue_active.avg.pct_of_peak_sustained_active"],
                       v[i, "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"],
                       v[i, "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"],
                       v[i, "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"],
                       v[i, "lts__t_sector_hit_rate.pct"]
                   d[i] = g / 1000; c[i] = h / 1e6 }
               if (n >= 2) { for (i = 2; i <= n; i++) { t[i - 1] = d[i]; u[i - 1] = c[i] }
                             sort(t, n - 1); sort(u, n - 1)
                             printf "@%s %d %.1f %.0f %.1f %.0f\n", name, n, d[1], c[1], t[int(n / 2)], u[int(n / 2)] } }
         function sort(a, k,   i, j, x) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x } }' \
        name="$name" "$out/attnb42.$name.ncu" | tee "$out/attnb42.$name.calls" | grep -v "^@"
    grep -E "verified|FAILED|rror|==ERROR|==WARNING" "$out/attnb42.$name.ncu" | head -n 4
    echo "   (at $(el) s)"
}
# decide: the rule's lines from the @ lines (NAME, launches profiled, launch 1's us and MHz, the
# median of launches 2.. us and MHz)
decide()
{
    cat "$out"/attnb42.*.calls 2>/dev/null | awk '/^@/ {
        sub(/^@/, ""); k++
        name = $1; n = $2; d1 = $3; c1 = $4; dm = $5; cm = $6
        warm = (dm / d1 > 1.03)
        line = sprintf("decides: the count at %s: the dK/dV kernel under ncu, launch 1 (the check%ss) %.1f us at %d MHz, launches 2-%d %.1f at %d (x%.3f of launch 1): the warm state %s",
                       name, q, d1, c1, n, dm, cm, dm / d1, warm ? "costs time" : "costs nothing")
        if (name == "2x16x16384") {
            ref = warm ? dm : d1
            r = 20580 / ref
            line = line sprintf("; the bench%ss call (20,580 us, the mid pass) x%.3f of launch %s: the extra time lies %s", q, r,
                                warm ? "2-6" : "1", (r > 1.04) ? "outside what ncu sees (the dependent launches, which ncu serializes, or the calls" q " host side)" : "in the kernel" q "s warm launches")
        }
        print line }
        END { if (!k) print "decides: the count: no launch read (nothing to decide)" }' q="'"
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "decides: CUTEC_ATTN_BWD_PINGPONG: deleted at the mid pass (2x16x16384 in turns x0.988, behind in both rounds)"
        if find_ncu; then
            launches 2x16x16384 40 --batch 2 --heads 16 --seqlen 16384
            launches 8x16x4096 30 --batch 8 --heads 16 --seqlen 4096
        fi
        echo "== at $(el) s:"
        decide
    else
        echo "== no GPU here: nothing profiled"
        echo "decides: CUTEC_ATTN_BWD_PINGPONG: deleted at the mid pass (2x16x16384 in turns x0.988, behind in both rounds)"
        echo "decides: the count: not run (no GPU)"
    fi
    device_end
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\)" "$log" | tail -n 60
