#!/bin/sh
# The compute and row kernels short of their issues' marks, each profiled beside the
# reference's kernel (prof38, extended by prof39; at most BUDGET_S, 150 s, on one H200 after
# the build):
#   bf16   Hopper bf16 GEMM 4096^3 tn                 cuBLAS's kernel       (issue 15: 108% asked)
#   fp8    fp8 block scales 4096x7168x16384           cuBLASLt's, unscaled  (issue 15: ~98%);
#   fp8b   and cuBLASLt's block-scaled kernel (torch._scaled_mm, 1x128 / 128x128 scales), alone
#   s8     SM80 s8 GEMM 4096^3 (mma.sync)              cuBLAS's              (issue 13: 80% of mma.sync)
#   attn   Hopper attention forward d128 2x16x16384   torch SDPA's, where torch is (issue 18: 780)
#   bwd    Hopper attention backward d128 8x16x4096, not causal (table case bwd: the default's
#          fused kernel) and causal (bwdc: dK/dV, then dQ), each `cutec run attention --bwd` a
#          process; SDPA's backward kernels (bench/torch_attention.py's one_bwd, one causality
#          a process: cuDNN's or FlashAttention's, whichever torch picks); then the bench,
#          the SM clock and power sampled every 20 ms beside it and summed up for SDPA's
#          process and for ours apart (the clocks the two sides sustain under load differ)
#                                                                   (issue 18: 110% asked)
#   ln     the norms' forwards, bf16: LayerNorm 1024x262144 (ln256k) and 4096x32768 (ln32k),
#          RMSNorm (rms256k) and softmax (sm256k) at 1024x262144, each `cutec bench OP` under
#          ncu (its check against float64 and its row first, in the same process), and a copy
#          kernel of 1024x262144's bytes (copy: `run elementwise --op neg`; the bench's own
#          copy is cuMemcpyDtoDAsync, which ncu does not profile)   (issue 16: 3.7 TB/s, ~88%)
# Each case: the bench first, without ncu (every kernel checked against float64 on the GPU's
# result, the bench's 256 sampled elements or 512 rows; a WRONG row leaves the case
# unprofiled), its rows the figures (ln: the bench runs under ncu, its check before the
# profiled launch; its row's times are no figures, ncu's interception slowed them by 9-22
# points of the copy in prof39's pass: the ln lines' DRAM GB/s against the copy kernel's,
# 81.1 / 82.7 / 86.7 / 94.2% there, are); then ONE process
# of the same bench under Nsight Compute (clocks left alone; caches flushed before each replay
# pass, as prof35: cold L2) profiling the third launch of every kernel the process runs
# (`--kernel-id ::regex:.:3`: ours and cuBLAS's in one process, the bench's check and first
# warm-up call before it; SDPA's in a process of its own, bench/torch_attention.py at the same
# shape, the bench's hook).  A process that shows no kernel of ours, or none of the
# reference's, is profiled again by name (`-k regex:... --launch-skip 2 --launch-count 1`).
# The table (a row a kernel; rows under 5% of the case's longest kernel listed after it,
# except in bwd, where every kernel of a backward is a row):
#   us, MHz:   ncu's duration (one cold launch; not the bench's time) and SM clock;
#   tensor%:   the busiest tensor pipe, % of its peak over the cycles the SMs were active
#              (g: wgmma, h: hmma, i: imma, t: any tensor op), where ncu has the metric;
#   Ktc:       the tensor pipe's instructions as ncu counts them (a warp's), thousands: the
#              FLOPs over them give the size of one, ours against the reference's;
#   fma%:      the FMA pipe (the fp8 promotion's FFMAs, the softmax's);  issue%: issue slots busy;
#   Minst:     warp instructions executed, millions;
#   regs, smemKB: registers a thread, shared memory a block (static + dynamic);
#   occ%:      achieved occupancy;  L2hit%: L2 sector hit rate;  dram%: DRAM throughput, % of peak;
#   bar slp:   warps stalled on a barrier (bar.sync, named barriers) and sleeping (nanosleep,
#              suspended try_waits), a warp an issued instruction;
#   stalls:    the four largest stall reasons in warps an issued instruction ("selected", the
#              issue itself, left out; "of": all of them: the cycles between a warp's issues);
#   [..]:      the kernel, its grid x block, waves an SM, and with clusters their size and how
#              many ncu says fit on the card at once.
# who: ours (a cutec kernel), ref (the reference's), copy (the ln case's copy kernel).
# Then the bytes table, a row a kernel (ln: KB a row of the matrix; the others: MB a launch):
#   DRAM rd, wr:   bytes read from and written to DRAM;  /need: over the bytes the op must
#                  move (ln: x, the weight and bias once, y, the statistics; 1.000: no re-read);
#   L2 rd, wr:     L2's sectors read and written by every client, as bytes (the reads come
#                  out half the writes above L1>L2's in every kernel, the copy's too);
#   L1>L2 rd, wr:  those the SMs ask (loads, stores and the TMA's bulk copies: softmax's
#                  512 KB a row is its staged x);
#   red:           L2's reduction and atomic sectors (the backward's dQ sums), as bytes;
#   L2hit%, L1hit%: sector hit rates;  GB/s: DRAM bytes read + written over ncu's duration;
#   dram%, L2%:    DRAM and L2 throughput, % of their peaks.
# Then a line a case: ours' duration as a share of the reference's (bwd, bwdc: the sum of each
# side's kernels, torch's random-input kernel left out); ln: each kernel's DRAM GB/s against
# the copy kernel's.  Raw output: $OUT/TAG-CASE.txt (the process under ncu), one file a kernel
# $OUT/TAG-CASE-N-KERNEL.txt, the bench's rows $OUT/TAG-CASE-bench.txt; the log $OUT/TAG.log
# (TAG: $PROF_TAG, prof38 by default; scripts/device-prof39.sh sets prof39).
# CASES="bf16 attn" (any of bf16 fp8 s8 attn bwd bwdfa ln gemv fp4; bf16 fp8 s8 attn by default) runs
# only those; bwdfa: the non-causal backward's fused-atomic form under ncu, what the fused
# kernel's deterministic turns cost (~17 s; not in prof39's default, which fills its 150 s).
# ncu's figures are read in whatever unit it prints (nsecond or ns, usecond, Kbyte, Ghz,
# cycle/nsecond, thousands separators); `sh scripts/device-prof38.sh units` checks that reading
# without a GPU.  A metric this ncu lacks is dropped (every one it names at once) and the
# process run again; a case where none works falls back to ncu's sections (printed, not
# tabled).  What it decides: nothing (a profile).  Past BUDGET_S a step prints "skipped", and
# no step's time limit reaches past it.
. scripts/device-common.sh
tag=${PROF_TAG:-prof38}
log="$out/$tag.log"
start=$(date +%s) budget=${BUDGET_S:-150}
export CUTEC_TORCH_SCALED_MM=/nonexistent/no-torch-scaled-mm.py # --scale's torch rows: not asked
export CUTEC_TORCH_ROWS=/dev/null                                # nor torch's rows (ln)
# the metrics: plain names, and four families by regex (each sure to match some name:
# sm__pipe_fma_..., the long-scoreboard stall, the instructions by pipe, the shared-memory
# wavefronts and bank conflicts, the last raw only; ncu 2025.3 finds no launch__ metric by
# regex: the early pass, 03:39).  A name or regex ncu does not find is dropped from the list
# and the process run again (p38_profile), up to three times; then ncu's sections

metrics="gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__issue_active.avg.pct_of_peak_sustained_active"
metrics="$metrics,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct"
metrics="$metrics,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,smsp__inst_executed.sum"
metrics="$metrics,launch__registers_per_thread,launch__grid_size,launch__block_size,launch__shared_mem_per_block_static"
metrics="$metrics,launch__shared_mem_per_block_dynamic,launch__waves_per_multiprocessor"
metrics="$metrics,launch__cluster_size,launch__cluster_max_active"
# the bytes table's: DRAM written, L2's sectors by client and operation, L2 and L1 throughput
metrics="$metrics,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum"
metrics="$metrics,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum"
metrics="$metrics,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum"
metrics="$metrics,l1tex__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed"
metrics="$metrics,regex:^sm__pipe_[a-z0-9_]+_cycles_active\.avg\.pct_of_peak_sustained_active$"
metrics="$metrics,regex:^smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active\.ratio$"
metrics="$metrics,regex:^sm__inst_executed_pipe_[a-z0-9_]+\.sum$"
metrics="$metrics,regex:^l1tex__data_(bank_conflicts_pipe_lsu_mem_shared|pipe_lsu_wavefronts_mem_shared)(_op_ld|_op_st)?\.sum$"
sections="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis"
sections="$sections --section WarpStateStats --section Occupancy --section LaunchStats"
p38_launch=3   # the launch of each kernel name profiled
p38_also=5     # rows under this % of a process's longest kernel go on its "also" line
p38_need="0 0 0" # the bytes table's ROWS READ WRITE of the next profile (0: MB a launch, no need)

# p38_find_ncu: $ncu, the first of PATH's and the toolkit's; false, saying where it looked, if none
p38_find_ncu()
{
    for c in "$(command -v ncu 2>/dev/null)" /usr/local/cuda/bin/ncu /usr/local/cuda*/bin/ncu \
        /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda*/nsight-compute*/ncu; do
        [ -n "$c" ] && [ -x "$c" ] && ncu=$c && echo "ncu: $ncu ($("$ncu" --version 2>&1 | tail -n 1))" && return 0
    done
    echo "ncu: none on PATH, in /usr/local/cuda*/bin, /opt/nvidia/nsight-compute/*/ or /usr/local/cuda*/nsight-compute*/"
    return 1
}

# p38_lim SECONDS: SECONDS, or what the budget has left where that is less (at least 1)
p38_lim()
{
    l=$((budget - $(el)))
    [ "$l" -lt "$1" ] || l=$1
    [ "$l" -gt 0 ] || l=1
    echo "$l"
}

# p38_bench CASE SECONDS ARGS...: `cutec bench ARGS` (no ncu) into $out/TAG-CASE-bench.txt
# (each line's UTC time before it in TAG-CASE-bench.stamped), its rows printed; false where a
# row is WRONG or failed, or none was checked
p38_bench()
{
    c=$1 lim=$2 && shift 2
    device_late "bench $c" && return 1
    echo "-- +$(el) s: $c: cutec bench $*"
    timeout "$(p38_lim "$lim")" stdbuf -oL -eL build/cutec bench "$@" 2>&1 | stamp >"$out/$tag-$c-bench.stamped"
    cut -d' ' -f2- "$out/$tag-$c-bench.stamped" >"$out/$tag-$c-bench.txt"
    grep -vE "^# ( |check|time|index)" "$out/$tag-$c-bench.txt" | cut -c1-200
    ! grep -qE "WRONG|FAILED| failed|unsupported|out of device" "$out/$tag-$c-bench.txt" &&
        grep -qE " ok|^(bf16|f16) .* [0-9]+ |^[a-z-]+ +(fwd|bwd) +(bf16|f16|f32) " "$out/$tag-$c-bench.txt"
}

# p38_sampling FILE: nvidia-smi's UTC time, SM clock, power and utilization every 20 ms into
# FILE, in the background until p38_sampled;  p38_sampled FILE STAMPED SPLIT A B: the median,
# lowest and highest SM clock and the median power of the busy samples (utilization >= 80%)
# before (A) and after (B) the first line of STAMPED (a p38_bench's) that SPLIT matches
p38_sampling()
{
    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,utilization.gpu --format=csv,noheader,nounits -lms 20 \
        >"$1" 2>/dev/null &
    sampler=$!
}
p38_sampled()
{
    kill "$sampler" 2>/dev/null
    wait "$sampler" 2>/dev/null
    at=$(awk -v re="$3" '$0 ~ re { print $1; exit }' "$2")
    # nvidia-smi's times are local, the stamps UTC
    off=$((($(date +%-H) - $(date -u +%-H)) * 3600 + ($(date +%-M) - $(date -u +%-M)) * 60))
    for side in 0 1; do
        awk -F', *' -v at="$at" -v off="$off" -v side=$side '
            function secs(hms,   a) { split(hms, a, ":"); return a[1] * 3600 + a[2] * 60 + a[3] }
            NF >= 4 && $4 + 0 >= 80 { split($1, d, " ")
                if ((at != "" && secs(d[2]) >= secs(at) + off) == side) print $2 + 0, $3 + 0 }' \
            "$1" | sort -n | awk -v who="$([ $side = 0 ] && echo "$4" || echo "$5")" '{ c[NR] = $1; p[NR] = $2 }
                END { if (!NR) { printf("%s: no busy sample\n", who); exit }
                      for (i = 1; i <= NR; i++) q[i] = p[i]; n = asort_(q)
                      printf("%s: SM clock %d MHz median (%d-%d), power %.0f W median, %d busy samples of 20 ms\n",
                             who, c[int((NR + 1) / 2)], c[1], c[NR], q[int((n + 1) / 2)], NR) }
                function asort_(a,   i, j, t, n) { n = 0; for (i in a) n++
                    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
                    return n }'
    done
}

# p38_ncu FILE SECONDS FILTER... -- CMD...: CMD under ncu with FILTER's options, its output
# appended to FILE (the metrics, or the sections once a metric was missing)
p38_ncu()
{
    f=$1 lim=$2 && shift 2
    filter=
    while [ "$1" != -- ]; do filter="$filter $1" && shift; done
    shift
    what="--metrics $metrics"
    [ -n "${sections_only:-}" ] && what=$sections
    set -f # the regexes' brackets are not file names
    # shellcheck disable=SC2086
    timeout "$(p38_lim "$lim")" "$ncu" --clock-control none --cache-control all --target-processes all \
        --kernel-name-base function --print-kernel-base function --print-units base $filter $what "$@" >>"$f" 2>&1
    rc=$?
    set +f
    echo "   ncu rc $rc, $(grep -c ', Context [0-9]*, Stream' "$f") kernel(s) in $(basename "$f") (+$(el) s)"
}

# p38_profile NAME CASE SECONDS OURS REF CMD...: CMD's process under ncu (the $p38_launch-th
# launch of each kernel) into $out/TAG-NAME.txt, its rows under CASE in $out/TAG-rows.txt and
# $out/TAG-bytes.txt (with $p38_need); again by name where OURS is 1 and none of ours (a name
# ending _kernel_N) was profiled, and where REF is a regex of the reference's names (not "-")
# and no other kernel was; the raw output also split a kernel a file
p38_profile()
{
    name=$1 c=$2 lim=$3 ours=$4 ref=$5 f="$out/$tag-$1.txt" && shift 5
    device_late "ncu $name" && return
    echo "-- +$(el) s: ncu $name: $(echo "$*" | tr '\n' ' ')" && : >"$f"
    p38_ncu "$f" "$lim" --kernel-id "::regex:.:$p38_launch" -- "$@"
    for try in 1 2 3; do
        miss=$(sed -n 's/^==ERROR== Failed to find metric \(.*\)$/\1/p' "$f" | sort -u)
        [ -z "$miss" ] || [ -n "${sections_only:-}" ] || device_late "ncu $name again" && break
        echo "   ncu has no metric $(echo "$miss" | paste -sd' ' -): dropped, again ($try)"
        metrics=$(echo "$metrics" | tr ',' '\n' | grep -vxF "$miss" | paste -sd, -)
        : >"$f"
        p38_ncu "$f" "$lim" --kernel-id "::regex:.:$p38_launch" -- "$@"
    done
    if [ -z "${sections_only:-}" ] && ! grep -q "gpu__time_duration.sum" "$f" && grep -qiE "^==ERROR==.*metric" "$f"; then
        echo "   no metrics ($(grep -m 2 -E "^==ERROR==" "$f" | cut -c1-160 | tr '\n' ' ')): ncu's sections from now on"
        sections_only=1
        : >"$f"
        device_late "ncu $name (sections)" || p38_ncu "$f" "$lim" --kernel-id "::regex:.:$p38_launch" -- "$@"
    fi
    grep -m 2 -E "^==ERROR==" "$f" | cut -c1-160
    names=$(awk '/, Context [0-9]+, Stream [0-9]+/ { print $1 }' "$f")
    skip=$((p38_launch - 1))
    if grep -qE "WRONG|FAILED| failed|Traceback" "$f"; then
        echo "   the process's check failed or it stopped: not profiled again"
    else
        if [ "$ours" = 1 ] && ! echo "$names" | grep -qE "_kernel_[0-9]+$"; then
            echo "   ours not among them: again by name"
            device_late "ncu $name ours" ||
                p38_ncu "$f" "$lim" -k "regex:_kernel_[0-9]+$" --launch-skip $skip --launch-count 1 -- "$@"
        fi
        if [ "$ref" != - ] && ! echo "$names" | grep -qvE "_kernel_[0-9]+$"; then
            echo "   none of the reference's: again by name ($ref)"
            device_late "ncu $name reference" ||
                p38_ncu "$f" "$lim" -k "regex:$ref" --launch-skip $skip --launch-count 1 -- "$@"
        fi
    fi
    awk -v base="$out/$tag-$name" '/, Context [0-9]+, Stream [0-9]+/ { k = $1; gsub(/[^A-Za-z0-9_]/, "_", k)
        n++; to = base "-" n "-" substr(k, 1, 48) ".txt" } to { print > to }' "$f"
    # the process's verdict and rows (its times are not figures: ncu's interception slowed the
    # rows' benches by 9-22 points of the copy in prof39's first pass)
    grep -m 3 -E "verified|WRONG|FAILED| failed|^[a-z-]+ +(fwd|bwd) +(bf16|f16|f32) |^torch " "$f" | cut -c1-150 |
        sed 's/^/   under ncu (its check; times not figures): /'
    if [ -n "${sections_only:-}" ]; then
        grep -E ", Context |Duration|SM Frequency|Issue Slots Busy|Registers Per|Shared Memory Configuration|Achieved Occupancy|L2 Hit|DRAM Throughput|Warp Cycles Per Issued" "$f" | head -40
    else
        p38_rows "$c" "$f" | tee -a "$out/$tag-rows.txt"
        # shellcheck disable=SC2086
        p38_rows "$c" "$f" bytes $p38_need >>"$out/$tag-bytes.txt"
    fi
}

# p38_rows CASE FILE [bytes ROWS READ WRITE]: a table row for each kernel of ncu's output FILE
# ("NAME UNIT VALUE" lines under each kernel's "NAME (grid)x(block), Context ..." line), every
# value in its base unit whatever unit ncu printed; kernels under $p38_also % of the longest
# in FILE on one "also" line.  With "bytes", the bytes table's row: KB a row of ROWS rows (MB
# a launch where ROWS is 0), DRAM's reads and writes over READ and WRITE bytes (0: not given)
p38_rows()
{
    awk -v cs="$1" -v mode="${3:-main}" -v nrows="${4:-0}" -v needr="${5:-0}" -v needw="${6:-0}" -v also="$p38_also" '
        # the factor from UNIT into its base unit: a time word, else an SI prefix before a word
        function scale(u,   p) {
            if (u ~ /^(ns|nsecond)$/) return 1e-9
            if (u ~ /^(us|usecond)$/) return 1e-6
            if (u ~ /^(ms|msecond)$/) return 1e-3
            if (u ~ /^(s|second)$/) return 1
            p = substr(u, 1, 1)
            if (u !~ /^.[a-z]/) return 1
            return p == "K" || p == "k" ? 1e3 : p == "M" ? 1e6 : p == "G" ? 1e9 : p == "T" ? 1e12 : 1
        }
        function value(v, u,   i) {
            gsub(",", "", v)
            i = index(u, "/")
            return (v + 0) * (i ? scale(substr(u, 1, i - 1)) / scale(substr(u, i + 1)) : scale(u))
        }
        function main_row(t, who,   best, tag, tc, p, r, s, sum, top, b, i, cl) {
            best = -1; tc = 0
            for (p in m) if (p ~ /^sm__pipe_tensor.*cycles_active/ && m[p] > best) {
                best = m[p]; tag = p ~ /gmma/ ? "g" : p ~ /hmma/ ? "h" : p ~ /imma/ ? "i" : "t" }
            for (p in m) if (p ~ /^sm__inst_executed_pipe_tensor/ && m[p] > tc) tc = m[p]
            sum = 0
            for (s in m) if (s ~ /issue_stalled_/) {
                r = s; sub(/^smsp__average_warps_issue_stalled_/, "", r); sub(/_per_issue_active.ratio$/, "", r)
                sum += m[s]; if (r != "selected") st[r] = m[s] }
            top = ""
            for (i = 0; i < 4; i++) {
                b = ""; for (r in st) if (b == "" || st[r] > st[b]) b = r
                if (b != "") { top = top sprintf("%s %.2f ", b, st[b]); delete st[b] } }
            for (r in st) delete st[r]
            cl = m["launch__cluster_size"] > 1 ? sprintf(", clusters of %d, %d at once", m["launch__cluster_size"],
                                                          m["launch__cluster_max_active"]) : ""
            return sprintf("%-7s %-4s %8.1f %5.0f %6s %7.1f %5.1f %6.1f %6.1f %4d %6.1f %5.1f %6.1f %5.1f %5.2f %5.2f  %s(of %.2f) [%s %dx%d, %.2f waves%s]",
                cs, who, t, m["sm__cycles_elapsed.avg.per_second"] / 1e6,
                best < 0 ? "-" : sprintf("%.1f%s", best, tag), tc / 1e3, m["sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"],
                m["smsp__issue_active.avg.pct_of_peak_sustained_active"], m["smsp__inst_executed.sum"] / 1e6,
                m["launch__registers_per_thread"],
                (m["launch__shared_mem_per_block_static"] + m["launch__shared_mem_per_block_dynamic"]) / 1024,
                m["sm__warps_active.avg.pct_of_peak_sustained_active"], m["lts__t_sector_hit_rate.pct"],
                m["dram__throughput.avg.pct_of_peak_sustained_elapsed"],
                m["smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"],
                m["smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio"], top, sum, name,
                m["launch__grid_size"], m["launch__block_size"], m["launch__waves_per_multiprocessor"], cl)
        }
        function bytes_row(t, who,   per, rd, wr) {
            per = nrows > 0 ? nrows * 1024 : 1e6
            rd = m["dram__bytes_read.sum"]; wr = m["dram__bytes_write.sum"]
            return sprintf("%-7s %-4s %8.1f %8.1f %8.1f %6s %6s %8.1f %8.1f %8.1f %8.1f %8.1f %6.1f %6.1f %7.0f %5.1f %5.1f  [%s]",
                cs, who, t, rd / per, wr / per, needr > 0 ? sprintf("%.3f", rd / needr) : "-",
                needw > 0 ? sprintf("%.3f", wr / needw) : "-",
                32 * m["lts__t_sectors_op_read.sum"] / per, 32 * m["lts__t_sectors_op_write.sum"] / per,
                32 * m["lts__t_sectors_srcunit_tex_op_read.sum"] / per, 32 * m["lts__t_sectors_srcunit_tex_op_write.sum"] / per,
                32 * (m["lts__t_sectors_op_red.sum"] + m["lts__t_sectors_op_atom.sum"]) / per,
                m["lts__t_sector_hit_rate.pct"], m["l1tex__t_sector_hit_rate.pct"], t > 0 ? (rd + wr) / t / 1e3 : 0,
                m["dram__throughput.avg.pct_of_peak_sustained_elapsed"], m["lts__throughput.avg.pct_of_peak_sustained_elapsed"],
                name)
        }
        function finish(   t, who, p) {
            if (name == "") return
            t = m["gpu__time_duration.sum"] * 1e6
            who = name ~ /^ew_kernel_[0-9]+$/ ? "copy" : name ~ /_kernel_[0-9]+$/ ? "ours" : "ref"
            n++; rows[n] = mode == "bytes" ? bytes_row(t, who) : main_row(t, who); us[n] = t; if (t > most) most = t
            name = ""; for (p in m) delete m[p]
        }
        /\)x\([0-9]+, [0-9]+, [0-9]+\), Context [0-9]+/ { finish(); name = $1; next }
        name != "" && $1 ~ /__/ && NF >= 2 { m[$1] = value($NF, NF >= 3 ? $(NF - 1) : "") }
        END {
            finish(); also_line = ""
            for (i = 1; i <= n; i++)
                if (us[i] >= also / 100 * most) print rows[i]
                else { split(rows[i], w, "["); sub(/ .*/, "", w[2]); sub(/\]$/, "", w[2])
                       also_line = also_line sprintf(" %s (%.1f us)", w[2], us[i]) }
            if (also_line != "") printf("%-7s also (under %s%% of the longest):%s\n", cs, also, also_line)
        }' "$2"
}

# p38_summary FILE [SUM [SKIP]]: a line a case of the table's rows: the reference's longest
# kernel against ours, or, for the cases SUM matches (an awk regex), the sum of each side's
# kernels (torch's random inputs, distribution_*, left out); in time and in cycles (us x MHz:
# the two sides' clocks differ); the cases SKIP matches left out
p38_summary()
{
    awk -v sum="${2:-^$}" -v skip="${3:-^$}" '($2 == "ours" || $2 == "ref") && $1 !~ skip {
            kn = $0; sub(/.*\[/, "", kn); sub(/[ \]].*/, "", kn)
            if (!(($1) in seen)) { seen[$1] = 1; order[++n] = $1 }
            if ($1 ~ sum) { if (kn !~ /^distribution_/) { t[$1, $2] += $3; cy[$1, $2] += $3 * $4; c[$1, $2]++
                                                           k[$1, $2] = c[$1, $2] " kernels" } }
            else if ($3 > t[$1, $2]) { t[$1, $2] = $3; cy[$1, $2] = $3 * $4; k[$1, $2] = kn } }
        END { for (i = 1; i <= n; i++) { cs = order[i]
            if (t[cs, "ours"] && t[cs, "ref"])
                printf("%s: ours %.1f us (%s), the reference %.1f us (%s): ours takes %.1f%% of its time, %.1f%% of its cycles (%.2fM against %.2fM)\n",
                       cs, t[cs, "ours"], k[cs, "ours"], t[cs, "ref"], k[cs, "ref"], 100 * t[cs, "ours"] / t[cs, "ref"],
                       cy[cs, "ref"] ? 100 * cy[cs, "ours"] / cy[cs, "ref"] : 0, cy[cs, "ours"] / 1e6, cy[cs, "ref"] / 1e6)
            else printf("%s: %s alone profiled\n", cs, t[cs, "ours"] ? "ours" : "the reference") } }' "$1"
}

# p38_copy_share FILE CASES: for each row of ours in the bytes table FILE whose case CASES (an
# awk regex) matches, its DRAM GB/s against the copy kernel's row (the ln case)
p38_copy_share()
{
    awk -v cases="$2" '$2 == "copy" { copy = $15 } $2 == "ours" && $1 ~ cases { n++; c[n] = $1; g[n] = $15; l2[n] = $17; d[n] = $16 }
        END { for (i = 1; i <= n; i++)
            if (copy > 0) printf("%s: DRAM %.0f GB/s (read + written), %.1f%% of the copy kernel'"'"'s %.0f; DRAM %.1f%%, L2 %.1f%% of peak\n",
                                 c[i], g[i], 100 * g[i] / copy, copy, d[i], l2[i])
            else printf("%s: DRAM %.0f GB/s (no copy kernel profiled)\n", c[i], g[i]) }' "$1"
}

# `sh scripts/device-prof38.sh units`: p38_rows and p38_summary on three kernels as ncu prints
# them in three unit styles (base units; usecond, Kbyte, Mbyte and Ghz; ms, Mbyte, Gbyte and
# cycle/nsecond): the three tables must read alike (ours 812.4 us at 1980 MHz with 227 KB in
# clusters of 2, the reference 700.0 us, a 3 us kernel on the "also" line) and ours take
# 116.1% of the reference's time; the three bytes tables too (ours 1 GB read and 0.5 GB written
# over 1024 rows: 1024.0 and 512.0 KB a row, 1.000 of the need each, 1536.0 KB a row read from
# L2, 1982 GB/s)
units()
{
    rm -f "$out/$tag-units-all.txt" "$out/$tag-units-bytes.txt"
    for style in "ns 812,416 700,000 3,000 hz 1,980,000,000 byte/block 232,448 byte 1,073,741,824 536,870,912" \
        "usecond 812.416 700 3 Ghz 1.98 Kbyte/block 232.448 Mbyte 1,073.741824 536.870912" \
        "ms 0.812416 0.7 0.003 cycle/nsecond 1.98 Mbyte/block 0.232448 Gbyte 1.073741824 0.536870912"; do
        # shellcheck disable=SC2086
        set -- $style
        {
            echo "==PROF== Profiling \"hopper_kernel_0\": 0%....50%....100% - 19 passes"
            echo "  hopper_kernel_0 (132, 1, 1)x(384, 1, 1), Context 1, Stream 7, Device 0, CC 9.0"
            echo "    gpu__time_duration.sum $1 $2"
            echo "    sm__cycles_elapsed.avg.per_second $5 $6"
            echo "    launch__shared_mem_per_block_dynamic $7 $8"
            echo "    launch__registers_per_thread register/thread 168"
            echo "    launch__cluster_size 2"
            echo "    launch__cluster_max_active cluster 66"
            echo "    smsp__inst_executed.sum inst 12,345,678"
            echo "    sm__inst_executed_pipe_tensor_op_gmma.sum inst 1,048,576"
            echo "    sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active % 81.25"
            echo "    sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active % 80.5"
            echo "    smsp__average_warps_issue_stalled_selected_per_issue_active.ratio inst 1"
            echo "    smsp__average_warps_issue_stalled_gmma_per_issue_active.ratio inst 2.5"
            echo "    smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio inst 0.25"
            echo "    dram__bytes_read.sum $9 ${10}"
            echo "    dram__bytes_write.sum $9 ${11}"
            echo "    lts__t_sectors_op_read.sum sector 50,331,648"
            echo "  nvjet_hsh_256x128_64x4_2x1_v_bz_coopB_TNN (16, 33, 1)x(384, 1, 1), Context 1, Stream 7, Device 0, CC 9.0"
            echo "    gpu__time_duration.sum $1 $3"
            echo "    sm__cycles_elapsed.avg.per_second $5 $6"
            echo "    launch__grid_size 528"
            echo "  distribution_elementwise_grid_stride_kernel (528, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 9.0"
            echo "    gpu__time_duration.sum $1 $4"
        } >"$out/$tag-units.txt"
        p38_rows units "$out/$tag-units.txt" >"$out/$tag-units-rows.txt"
        echo "$1 $5 $7 $9:"
        p38_summary "$out/$tag-units-rows.txt" | cat "$out/$tag-units-rows.txt" - | tee -a "$out/$tag-units-all.txt" |
            sed 's/^/  /'
        p38_rows units "$out/$tag-units.txt" bytes 1024 1073741824 536870912 | tee -a "$out/$tag-units-bytes.txt" |
            sed 's/^/  /'
    done
    if [ "$(sort -u "$out/$tag-units-all.txt" | wc -l)" -eq 4 ] &&
        grep -q "ours takes 116.1% of its time" "$out/$tag-units-all.txt" &&
        grep -q "clusters of 2, 66 at once" "$out/$tag-units-all.txt" &&
        [ "$(sort -u "$out/$tag-units-bytes.txt" | wc -l)" -eq 3 ] &&
        grep -qE "ours +812.4 +1024.0 +512.0 +1.000 +1.000 +1536.0 .* 1982 " "$out/$tag-units-bytes.txt"; then
        echo "units: the three styles read alike"
    else
        echo "units: the styles read differently (above)"
        return 1
    fi
}
if [ "${1:-}" = units ]; then
    units
    exit
fi

# p38_want CASE: true unless CASES leaves CASE out
p38_want() { case " ${CASES:-bf16 fp8 s8 attn} " in *" $1 "*) return 0 ;; esac; return 1; }

# p38_case CASE BENCH_S NCU_S REF ARGS...: unless CASES leaves CASE out, `cutec bench ARGS --iters
# 5` (the check and the figures), then, its rows checked, the profile of `cutec bench ARGS
# --iters 1`, ours and the reference's (REF: a regex of its kernel names) in one process
p38_case()
{
    c=$1 bs=$2 ns=$3 ref=$4 && shift 4
    p38_want "$c" && p38_bench "$c" "$bs" "$@" --iters 5 && [ "$have_ncu" = 1 ] &&
        p38_profile "$c" "$c" "$ns" 1 "$ref" build/cutec bench "$@" --iters 1
}

# p38_ln: the case ln: each norm's forward, `cutec bench OP` under ncu (its check against
# float64 and its row before the launch profiled; without ncu the bench alone), then the copy
# kernel of 1024x262144's bytes; the bytes each must move: x and the columns (LayerNorm's
# weight and bias, RMSNorm's weight) in, y and the f32 statistics a row (LayerNorm's mean and
# rstd, RMSNorm's rstd) out, as bench/rows_problem.c's rp_bytes counts them
ln_cases="ln256k ln32k rms256k sm256k copy"
p38_ln()
{
    p38_want ln || return 0
    echo "== the norms' forwards, bf16 (each bench under ncu: its check and its row, its 3rd launch profiled), the copy kernel"
    for s in "ln256k layernorm 1024 262144" "ln32k layernorm 4096 32768" "rms256k rmsnorm 1024 262144" \
        "sm256k softmax 1024 262144"; do
        # shellcheck disable=SC2086
        set -- $s
        mat=$(($3 * $4 * 2))
        case $2 in
        layernorm) rd=$((mat + 4 * $4)) wr=$((mat + 8 * $3)) ;;
        rmsnorm) rd=$((mat + 2 * $4)) wr=$((mat + 4 * $3)) ;;
        *) rd=$mat wr=$mat ;;
        esac
        if [ "$have_ncu" = 1 ]; then
            p38_need="$3 $rd $wr"
            p38_profile "$1" "$1" 40 1 - build/cutec bench "$2" --dtype bf16 --shape "$3x$4" --iters 3
        else
            p38_bench "$1" 30 "$2" --dtype bf16 --shape "$3x$4" --iters 5
        fi
    done
    p38_need="1024 536870912 536870912"
    [ "$have_ncu" = 1 ] &&
        p38_profile copy copy 40 1 - build/cutec run elementwise --op neg --dtype bf16 --shape 1024x262144 --iters 3
    p38_need="0 0 0"
}

# p38_sdpa_bwd "B H S D" CAUSAL: a Python program that times SDPA's backward at that shape, one
# causality (CAUSAL 0 or 1), by bench/torch_attention.py's one_bwd (imported with no shape:
# it runs none, prints its header)
p38_sdpa_bwd()
{
    # shellcheck disable=SC2086
    set -- $1 "$2"
    printf '%s\n' "import sys" "sys.argv, sys.path[:0] = ['torch_attention.py', '--bwd', 'bf16'], ['bench']" \
        "import torch" "import torch_attention" \
        "print('torch $1x$2x$3x$4 $5', torch_attention.one_bwd($1, $2, $3, $4, $5 == 1, torch.bfloat16))"
}

# p38_bwd: the case bwd (bwdfa alone: its fused-atomic profile only): under ncu ours not
# causal (bwd) and causal (bwdc), `cutec run
# attention --bwd` a process each (its check against float64 before the launch profiled), and
# SDPA's backward, one causality a process; every kernel a row.  Then the figures: ours and
# SDPA's in one bench (checked; last, so that the budget cuts it, not the profiles)
bwd_shape=${BWD_SHAPE:-8 16 4096 128} # BWD_SHAPE="B H S D" picks another
p38_bwd()
{
    p38_want bwd || p38_want bwdfa || return 0
    # shellcheck disable=SC2086
    set -- $bwd_shape
    shape="--batch $1 --heads $2 --seqlen $3 --headdim $4"
    echo "== attention backward d$4 $1x$2x$3: each side's kernels under ncu, then the bench (SDPA's beside)"
    p38_also=0
    for causal in 0 1; do
        if [ "$have_ncu" != 1 ] || ! p38_want bwd; then break; fi
        c=bwd flag=
        [ $causal = 1 ] && c=bwdc flag=--causal
        # shellcheck disable=SC2086
        p38_profile "$c" "$c" 50 1 - build/cutec run attention --bwd $shape $flag --iters 1
        if [ $causal = 1 ] && ! grep -q "^# torch" "$out/$tag-sdpa-bwd.txt"; then
            echo "-- SDPA causal: skipped (its non-causal process printed no torch line: no torch here?)"
        else
            p38_profile "sdpa-$c" "$c" 50 0 "flash|fmha|attn|attention|sdpa|cudnn|bwd|bprop" \
                python3 -c "$(p38_sdpa_bwd "$bwd_shape" $causal)"
        fi
    done
    # bwdfa (not by default): the fused kernel with its parts added in no set order, what the
    # deterministic turns cost in cycles (docs/attention.md, `fused-atomic`)
    # shellcheck disable=SC2086
    [ "$have_ncu" = 1 ] && p38_want bwdfa &&
        p38_profile bwdfa bwdfa 50 1 - env CUTEC_ATTN_BWD_FORM=fused-atomic build/cutec run attention --bwd $shape --iters 1
    p38_also=5
    p38_want bwd || return 0
    # the figures, the SM clock sampled beside: SDPA's process runs first (until the bench's
    # "# NVIDIA ..." line), then ours
    p38_sampling "$out/$tag-bwd-clocks.csv"
    # shellcheck disable=SC2086
    p38_bench bwd 60 attention --bwd $shape --iters 20
    p38_sampled "$out/$tag-bwd-clocks.csv" "$out/$tag-bwd-bench.stamped" " # NVIDIA" "   SDPA's backward (torch)" \
        "   ours' (cutec bench)"
}

# p38_gemv: the cases gemv (the bf16 GEMV at 16384x4096 and 8192x8192, and the read-only row
# sum of 16384x4096's bytes: gemv41's yardstick at 104% of the copy) and fp4 (the NVFP4 GEMV at
# issue 17's three shapes), each `cutec bench` under ncu (its check against float64 and its
# row before the launch profiled), then the copy kernel of 16384x4096 bf16's bytes (session 42)
p38_gemv()
{
    p38_want gemv || p38_want fp4 || return 0
    echo "== the GEMVs under ncu (each bench's check and row, its 3rd launch profiled), the copy kernel"
    set -- "gemv16k gemv --dtype bf16 --shape 16384x4096" "gemv8k gemv --dtype bf16 --shape 8192x8192" \
        "sum16k sum --dtype bf16 --shape 16384x4096"
    p38_want gemv || set --
    p38_want fp4 && set -- "$@" "fp4a gemv --dtype nvfp4 --shape 7168x16384" \
        "fp4b gemv --dtype nvfp4 --shape 4096x7168 --batch 8" "fp4c gemv --dtype nvfp4 --shape 7168x2048 --batch 4"
    for s in "$@"; do
        # shellcheck disable=SC2086
        set -- $s
        c=$1 && shift
        if [ "$have_ncu" = 1 ]; then
            p38_profile "$c" "$c" 40 1 - build/cutec bench "$@" --iters 3
        else
            p38_bench "$c" 30 "$@" --iters 5
        fi
    done
    [ "$have_ncu" = 1 ] &&
        p38_profile copy copy 40 1 - build/cutec run elementwise --op neg --dtype bf16 --shape 16384x4096 --iters 3
}

pass()
{
    device_head
    if ! nvidia-smi -L >/dev/null 2>&1; then
        echo "== no GPU: skipped (the checks, the benches and the profiles)"
        return
    fi
    echo "== build"
    make -j16 all tests 2>&1 | grep -E "error|warning" | head -20
    start=$(date +%s) # the budget is the profile's: it counts from here
    have_ncu=1
    p38_find_ncu || have_ncu=0
    : >"$out/$tag-rows.txt"
    : >"$out/$tag-bytes.txt"
    blas="nvjet|xmma|gemm|cutlass|Kernel"
    if p38_want bf16; then
        echo "== bf16 4096^3: the bench (ours and cuBLAS against float64, sampled), then ncu"
        p38_case bf16 45 45 "$blas" gemm --layout tn --dtype bf16 --variants hopper --sizes 4096
    fi
    if p38_want fp8; then
        echo "== fp8 block scales 4096x7168x16384 (cuBLASLt's row unscaled)"
        p38_case fp8 50 50 "$blas" gemm --layout tn --dtype e4m3 --out-dtype bf16 --variants hopper --scale block \
            --sizes 4096x7168x16384
        # cuBLASLt's block-scaled kernel (torch._scaled_mm, 1x128 and 128x128 scales: 0.7601 ms in
        # session 33, ours' time), in a process of its own: the reference with the same scaling
        [ "$have_ncu" = 1 ] &&
            p38_profile smm fp8b 60 0 "$blas" python3 bench/torch_scaled_mm.py --block e4m3 bf16 4096x7168x16384
    fi
    if p38_want s8; then
        echo "== s8 4096^3, the SM80 kernel; this card's mma.sync s8 ceiling first"
        sm80_mma
        p38_case s8 30 45 "$blas" gemm --layout tn --dtype s8 --variants tensorop_smem --sizes 4096
    fi
    # the attention forward: the bench with SDPA's rows; under ncu ours alone, then SDPA's
    # kernel in a process of its own
    attn="attention --batch 2 --heads 16 --seqlen 16384 --headdim 128"
    if p38_want attn; then
        echo "== attention forward d128 2x16x16384 (SDPA beside where torch is; the causal rows unprofiled)"
        # shellcheck disable=SC2086
        if p38_bench attn 60 $attn --iters 5 && [ "$have_ncu" = 1 ]; then
            # shellcheck disable=SC2086
            p38_profile attn attn 60 1 - env CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py build/cutec bench $attn --iters 1
            if grep -q "^# torch" "$out/$tag-attn-bench.txt"; then
                p38_profile sdpa attn 90 0 "flash|fmha|attn|attention|sdpa|cudnn" python3 bench/torch_attention.py bf16 2x16x16384x128
            else
                echo "-- SDPA: skipped (bench/torch_attention.py printed no torch line: no torch here?)"
            fi
        fi
    fi
    p38_ln
    p38_bwd
    p38_gemv
    if [ $have_ncu = 0 ]; then
        echo "== no ncu: the bench rows above are all this pass has"
    else
        echo "== the table (one cold launch each under ncu; see the script's header for the columns)"
        printf "%-7s %-4s %8s %5s %6s %7s %5s %6s %6s %4s %6s %5s %6s %5s %5s %5s  %s\n" case who us MHz tensor% Ktc fma% \
            issue% Minst regs smemKB occ% L2hit% dram% bar slp "top stalls (warps an issue) [kernel grid x block, waves]"
        cat "$out/$tag-rows.txt"
        lnre="^($(echo "$ln_cases" | tr ' ' '|'))$"
        p38_summary "$out/$tag-rows.txt" "^bwdc?$" "$lnre"
        echo "== the bytes table (ln: KB a row of the matrix; the others: MB a launch; see the header)"
        printf "%-7s %-4s %8s %8s %8s %6s %6s %8s %8s %8s %8s %8s %6s %6s %7s %5s %5s  %s\n" case who us "DRAM rd" \
            "DRAM wr" /need /need "L2 rd" "L2 wr" "L1>L2rd" "L1>L2wr" red L2hit% L1hit% GB/s dram% L2% "[kernel]"
        cat "$out/$tag-bytes.txt"
        p38_want ln && p38_copy_share "$out/$tag-bytes.txt" "$lnre"
    fi
    device_end
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 200
echo "decides: nothing to flip (a profile)"
