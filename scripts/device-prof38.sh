#!/bin/sh
# prof38's profile of the compute kernels short of their issues' marks, each beside the
# reference's kernel (at most BUDGET_S, 150 s, on one H200 after the build):
#   bf16   Hopper bf16 GEMM 4096^3 tn                 cuBLAS's kernel       (issue 15: 108% asked)
#   fp8    fp8 block scales 4096x7168x16384           cuBLASLt's, unscaled  (issue 15: ~98%);
#   fp8b   and cuBLASLt's block-scaled kernel (torch._scaled_mm, 1x128 / 128x128 scales), alone
#   s8     SM80 s8 GEMM 4096^3 (mma.sync)              cuBLAS's              (issue 13: 80% of mma.sync)
#   attn   Hopper attention forward d128 2x16x16384   torch SDPA's, where torch is (issue 18: 780)
# Each case: the bench first, without ncu (every kernel checked against float64 on the GPU's
# result, the bench's 256 sampled elements or 512 rows; a WRONG row leaves the case
# unprofiled), its rows the figures; then ONE process of the same bench under Nsight Compute
# (clocks left alone; caches flushed before each replay pass, as prof35: cold L2) profiling the
# third launch of every kernel the process runs (`--kernel-id ::regex:.:3`: ours and cuBLAS's in
# one process, the bench's check and first warm-up call before it; SDPA's in a process of its
# own, bench/torch_attention.py at the same shape, the bench's hook).  A process that shows no
# kernel of ours, or none of the reference's, is profiled again by name (`-k regex:...
# --launch-skip 2 --launch-count 1`).
# The table (a row a kernel; rows under 5% of the case's longest kernel listed after it):
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
#   [..]:      the kernel, its grid x block, waves an SM.
# Then a line a case: ours' duration as a share of the reference's.  Raw output: $OUT/prof38-CASE.txt
# (the process under ncu), one file a kernel $OUT/prof38-CASE-N-KERNEL.txt, the bench's rows
# $OUT/prof38-CASE-bench.txt; the log $OUT/prof38.log.
# CASES="bf16 attn" (any of bf16 fp8 s8 attn) runs only those.
# ncu's figures are read in whatever unit it prints (nsecond or ns, usecond, Kbyte, Ghz,
# cycle/nsecond, thousands separators); `sh scripts/device-prof38.sh units` checks that reading
# without a GPU.  A metric this ncu lacks: the case falls back to ncu's sections (printed, not
# tabled).  What it decides: nothing (a profile).  Past BUDGET_S a step prints "skipped".
. scripts/device-common.sh
log="$out/prof38.log"
start=$(date +%s) budget=${BUDGET_S:-150}
export CUTEC_TORCH_SCALED_MM=/nonexistent/no-torch-scaled-mm.py # --scale's torch rows: not asked
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
metrics="$metrics,regex:^sm__pipe_[a-z0-9_]+_cycles_active\.avg\.pct_of_peak_sustained_active$"
metrics="$metrics,regex:^smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active\.ratio$"
metrics="$metrics,regex:^sm__inst_executed_pipe_[a-z0-9_]+\.sum$"
metrics="$metrics,regex:^l1tex__data_(bank_conflicts_pipe_lsu_mem_shared|pipe_lsu_wavefronts_mem_shared)(_op_ld|_op_st)?\.sum$"
sections="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis"
sections="$sections --section WarpStateStats --section Occupancy --section LaunchStats"

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

# p38_bench CASE SECONDS ARGS...: `cutec bench ARGS` (no ncu) into $out/prof38-CASE-bench.txt,
# its rows printed; false where a row is WRONG or failed, or none was checked
p38_bench()
{
    c=$1 lim=$2 && shift 2
    device_late "bench $c" && return 1
    echo "-- +$(el) s: $c: cutec bench $*"
    timeout "$lim" stdbuf -oL -eL build/cutec bench "$@" >"$out/prof38-$c-bench.txt" 2>&1
    grep -vE "^# ( |check|time|index)" "$out/prof38-$c-bench.txt" | cut -c1-200
    ! grep -qE "WRONG|FAILED| failed|unsupported|out of device" "$out/prof38-$c-bench.txt" &&
        grep -qE " ok|^(bf16|f16) .* [0-9]+ " "$out/prof38-$c-bench.txt"
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
    timeout "$lim" "$ncu" --clock-control none --cache-control all --target-processes all --kernel-name-base function \
        --print-kernel-base function --print-units base $filter $what "$@" >>"$f" 2>&1
    rc=$?
    set +f
    echo "   ncu rc $rc, $(grep -c ', Context [0-9]*, Stream' "$f") kernel(s) in $(basename "$f") (+$(el) s)"
}

# p38_profile NAME CASE SECONDS OURS REF CMD...: CMD's process under ncu (the 3rd launch of
# each kernel) into $out/prof38-NAME.txt, its rows under CASE in $out/prof38-rows.txt; again by
# name where OURS is 1 and none of ours (a name ending _kernel_N) was profiled, and where REF
# is a regex of the reference's names (not "-") and no other kernel was; the raw output also
# split a kernel a file
p38_profile()
{
    name=$1 c=$2 lim=$3 ours=$4 ref=$5 f="$out/prof38-$1.txt" && shift 5
    device_late "ncu $name" && return
    echo "-- +$(el) s: ncu $name: $*" && : >"$f"
    p38_ncu "$f" "$lim" --kernel-id "::regex:.:3" -- "$@"
    for try in 1 2 3; do
        miss=$(sed -n 's/^==ERROR== Failed to find metric \(.*\)$/\1/p' "$f" | head -n 1)
        [ -z "$miss" ] || [ -n "${sections_only:-}" ] || device_late "ncu $name again" && break
        echo "   ncu has no metric $miss: dropped, again ($try)"
        metrics=$(echo "$metrics" | tr ',' '\n' | grep -vxF "$miss" | paste -sd, -)
        : >"$f"
        p38_ncu "$f" "$lim" --kernel-id "::regex:.:3" -- "$@"
    done
    if [ -z "${sections_only:-}" ] && ! grep -q "gpu__time_duration.sum" "$f" && grep -qiE "^==ERROR==.*metric" "$f"; then
        echo "   no metrics ($(grep -m 2 -E "^==ERROR==" "$f" | cut -c1-160 | tr '\n' ' ')): ncu's sections from now on"
        sections_only=1
        : >"$f"
        device_late "ncu $name (sections)" || p38_ncu "$f" "$lim" --kernel-id "::regex:.:3" -- "$@"
    fi
    grep -m 2 -E "^==ERROR==" "$f" | cut -c1-160
    names=$(awk '/, Context [0-9]+, Stream [0-9]+/ { print $1 }' "$f")
    if [ "$ours" = 1 ] && ! echo "$names" | grep -qE "_kernel_[0-9]+$"; then
        echo "   ours not among them: again by name"
        device_late "ncu $name ours" || p38_ncu "$f" "$lim" -k "regex:_kernel_[0-9]+$" --launch-skip 2 --launch-count 1 -- "$@"
    fi
    if [ "$ref" != - ] && ! echo "$names" | grep -qvE "_kernel_[0-9]+$"; then
        echo "   none of the reference's: again by name ($ref)"
        device_late "ncu $name reference" || p38_ncu "$f" "$lim" -k "regex:$ref" --launch-skip 2 --launch-count 1 -- "$@"
    fi
    awk -v base="$out/prof38-$name" '/, Context [0-9]+, Stream [0-9]+/ { k = $1; gsub(/[^A-Za-z0-9_]/, "_", k)
        n++; to = base "-" n "-" substr(k, 1, 48) ".txt" } to { print > to }' "$f"
    grep -m 3 -E "verified|WRONG|FAILED" "$f" | cut -c1-160
    if [ -n "${sections_only:-}" ]; then
        grep -E ", Context |Duration|SM Frequency|Issue Slots Busy|Registers Per|Shared Memory Configuration|Achieved Occupancy|L2 Hit|DRAM Throughput|Warp Cycles Per Issued" "$f" | head -40
    else
        p38_rows "$c" "$f" | tee -a "$out/prof38-rows.txt"
    fi
}

# p38_rows CASE FILE: a table row for each kernel of ncu's output FILE ("NAME UNIT VALUE" lines
# under each kernel's "NAME (grid)x(block), Context ..." line), every value in its base unit
# whatever unit ncu printed; kernels under 5% of the longest in FILE on one "also" line
p38_rows()
{
    awk -v cs="$1" '
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
        function finish(   t, best, tag, tc, p, r, s, sum, top, b, i, line) {
            if (name == "") return
            t = m["gpu__time_duration.sum"] * 1e6
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
            line = sprintf("%-5s %-4s %8.1f %5.0f %6s %7.1f %5.1f %6.1f %6.1f %4d %6.1f %5.1f %6.1f %5.1f %5.2f %5.2f  %s(of %.2f) [%s %dx%d, %.2f waves]",
                cs, name ~ /_kernel_[0-9]+$/ ? "ours" : "ref", t, m["sm__cycles_elapsed.avg.per_second"] / 1e6,
                best < 0 ? "-" : sprintf("%.1f%s", best, tag), tc / 1e3, m["sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"],
                m["smsp__issue_active.avg.pct_of_peak_sustained_active"], m["smsp__inst_executed.sum"] / 1e6,
                m["launch__registers_per_thread"],
                (m["launch__shared_mem_per_block_static"] + m["launch__shared_mem_per_block_dynamic"]) / 1024,
                m["sm__warps_active.avg.pct_of_peak_sustained_active"], m["lts__t_sector_hit_rate.pct"],
                m["dram__throughput.avg.pct_of_peak_sustained_elapsed"],
                m["smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"],
                m["smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio"], top, sum, name,
                m["launch__grid_size"], m["launch__block_size"], m["launch__waves_per_multiprocessor"])
            n++; rows[n] = line; us[n] = t; if (t > most) most = t
            name = ""; for (p in m) delete m[p]
        }
        /\)x\([0-9]+, [0-9]+, [0-9]+\), Context [0-9]+/ { finish(); name = $1; next }
        name != "" && $1 ~ /__/ && NF >= 2 { m[$1] = value($NF, NF >= 3 ? $(NF - 1) : "") }
        END {
            finish(); also = ""
            for (i = 1; i <= n; i++)
                if (us[i] >= 0.05 * most) print rows[i]
                else { split(rows[i], w, "["); sub(/ .*/, "", w[2]); also = also sprintf(" %s (%.1f us)", w[2], us[i]) }
            if (also != "") printf("%-5s also (under 5%% of the longest):%s\n", cs, also)
        }' "$2"
}

# p38_summary: a line a case of the table's rows: the reference's longest kernel against ours
p38_summary()
{
    awk '$2 == "ours" || $2 == "ref" { if ($3 > t[$1, $2]) { t[$1, $2] = $3; k[$1, $2] = $0; sub(/.*\[/, "", k[$1, $2])
            sub(/ .*/, "", k[$1, $2]) } if (!(($1) in seen)) { seen[$1] = 1; order[++n] = $1 } }
        END { for (i = 1; i <= n; i++) { c = order[i]
            if (t[c, "ours"] && t[c, "ref"])
                printf("%s: ours %.1f us (%s), the reference %.1f us (%s): ours takes %.1f%% of its time\n", c,
                       t[c, "ours"], k[c, "ours"], t[c, "ref"], k[c, "ref"], 100 * t[c, "ours"] / t[c, "ref"])
            else printf("%s: %s alone profiled\n", c, t[c, "ours"] ? "ours" : "the reference") } }' "$1"
}

# `sh scripts/device-prof38.sh units`: p38_rows and p38_summary on three kernels as ncu prints
# them in three unit styles (base units; usecond, Kbyte and Ghz; ms, Mbyte and cycle/nsecond):
# the three tables must read alike (ours 812.4 us at 1980 MHz with 227 KB, the reference 700.0
# us, a 3 us kernel on the "also" line) and ours take 116.1% of the reference's time
units()
{
    rm -f "$out/prof38-units-all.txt"
    for style in "ns 812,416 700,000 3,000 hz 1,980,000,000 byte/block 232,448" \
        "usecond 812.416 700 3 Ghz 1.98 Kbyte/block 232.448" \
        "ms 0.812416 0.7 0.003 cycle/nsecond 1.98 Mbyte/block 0.232448"; do
        set -- $style
        {
            echo "==PROF== Profiling \"hopper_kernel_0\": 0%....50%....100% - 19 passes"
            echo "  hopper_kernel_0 (132, 1, 1)x(384, 1, 1), Context 1, Stream 7, Device 0, CC 9.0"
            echo "    gpu__time_duration.sum $1 $2"
            echo "    sm__cycles_elapsed.avg.per_second $5 $6"
            echo "    launch__shared_mem_per_block_dynamic $7 $8"
            echo "    launch__registers_per_thread register/thread 168"
            echo "    smsp__inst_executed.sum inst 12,345,678"
            echo "    sm__inst_executed_pipe_tensor_op_gmma.sum inst 1,048,576"
            echo "    sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active % 81.25"
            echo "    sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active % 80.5"
            echo "    smsp__average_warps_issue_stalled_selected_per_issue_active.ratio inst 1"
            echo "    smsp__average_warps_issue_stalled_gmma_per_issue_active.ratio inst 2.5"
            echo "    smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio inst 0.25"
            echo "  nvjet_hsh_256x128_64x4_2x1_v_bz_coopB_TNN (16, 33, 1)x(384, 1, 1), Context 1, Stream 7, Device 0, CC 9.0"
            echo "    gpu__time_duration.sum $1 $3"
            echo "    sm__cycles_elapsed.avg.per_second $5 $6"
            echo "    launch__grid_size 528"
            echo "  distribution_elementwise_grid_stride_kernel (528, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 9.0"
            echo "    gpu__time_duration.sum $1 $4"
        } >"$out/prof38-units.txt"
        p38_rows units "$out/prof38-units.txt" >"$out/prof38-units-rows.txt"
        echo "$1 $5 $7:"
        p38_summary "$out/prof38-units-rows.txt" | cat "$out/prof38-units-rows.txt" - | tee -a "$out/prof38-units-all.txt" |
            sed 's/^/  /'
    done
    if [ "$(sort -u "$out/prof38-units-all.txt" | wc -l)" -eq 4 ] &&
        grep -q "ours takes 116.1% of its time" "$out/prof38-units-all.txt"; then
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

pass()
{
    device_head
    if ! nvidia-smi -L >/dev/null 2>&1; then
        echo "== no GPU: skipped (the checks, the benches and the profiles)"
        return
    fi
    echo "== build"
    make -j16 all tests 2>&1 | grep -E "error|warning" | head -20
    have_ncu=1
    p38_find_ncu || have_ncu=0
    : >"$out/prof38-rows.txt"
    blas="nvjet|xmma|gemm|cutlass|Kernel"
    echo "== bf16 4096^3: the bench (ours and cuBLAS against float64, sampled), then ncu"
    p38_case bf16 45 45 "$blas" gemm --layout tn --dtype bf16 --variants hopper --sizes 4096
    echo "== fp8 block scales 4096x7168x16384 (cuBLASLt's row unscaled)"
    p38_case fp8 50 50 "$blas" gemm --layout tn --dtype e4m3 --out-dtype bf16 --variants hopper --scale block \
        --sizes 4096x7168x16384
    # cuBLASLt's block-scaled kernel (torch._scaled_mm, 1x128 and 128x128 scales: 0.7601 ms in
    # session 33, ours' time), in a process of its own: the reference with the same scaling
    p38_want fp8 && [ "$have_ncu" = 1 ] &&
        p38_profile smm fp8b 60 0 "nvjet|xmma|gemm|cutlass|Kernel" python3 bench/torch_scaled_mm.py --block e4m3 bf16 \
            4096x7168x16384
    echo "== s8 4096^3, the SM80 kernel; this card's mma.sync s8 ceiling first"
    sm80_mma
    p38_case s8 30 45 "$blas" gemm --layout tn --dtype s8 --variants tensorop_smem --sizes 4096
    echo "== attention forward d128 2x16x16384 (SDPA beside where torch is; the causal rows unprofiled)"
    # the bench with SDPA's rows; under ncu ours alone, then SDPA's kernel in a process of its own
    attn="attention --batch 2 --heads 16 --seqlen 16384 --headdim 128"
    if p38_want attn && p38_bench attn 60 $attn --iters 5 && [ "$have_ncu" = 1 ]; then
        p38_profile attn attn 60 1 - env CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py build/cutec bench $attn --iters 1
        if grep -q "^# torch" "$out/prof38-attn-bench.txt"; then
            p38_profile sdpa attn 90 0 "flash|fmha|attn|attention|sdpa|cudnn" python3 bench/torch_attention.py bf16 2x16x16384x128
        else
            echo "-- SDPA: skipped (bench/torch_attention.py printed no torch line: no torch here?)"
        fi
    fi
    if [ $have_ncu = 0 ]; then
        echo "== no ncu: the bench rows above are all this pass has"
    else
        echo "== the table (one cold launch each under ncu; see the script's header for the columns)"
        printf "%-5s %-4s %8s %5s %6s %7s %5s %6s %6s %4s %6s %5s %6s %5s %5s %5s  %s\n" case who us MHz tensor% Ktc fma% \
            issue% Minst regs smemKB occ% L2hit% dram% bar slp "top stalls (warps an issue) [kernel grid x block, waves]"
        cat "$out/prof38-rows.txt"
        p38_summary "$out/prof38-rows.txt"
    fi
    device_end
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 80
echo "decides: nothing to flip (a profile)"
