#!/bin/sh
# Issue 15's two fp8 marks (engineer bs43, session 43), the final pass, on one H200 under 50 s of
# GPU work after the lead's `make all tests` (nothing built here); log $OUT/bs43.log.
# The mid pass (18:47 UTC, one H200; bench/RESULTS.md, bs43) read, % of cuBLASLt in one process:
#  - e4m3 per-tensor 8192^3, 128 x 256 1x1, C's whole tile before its TMA stores (`--store tile`)
#    against piece by piece (the default): 105.8 / 105.0 and, the order reversed, 109.6 / 108.8
#    (+0.8 twice: under the 1-point bar set for it); 2x1 clusters level (105.7, 109.6 with the
#    whole tile); ours 1,536-1,548 TFLOP/s, 117.3-118.2% of torch._scaled_mm (1,309.5 that run);
#  - block scales 256 x 128 1x2 with 4 stages against 3: 1,276.0 / 1,273.8 and 1,242.3 /
#    1,264.0 TFLOP/s (deleted); 128 x 192 1x2 1,140 / 1,144 (76.6 / 77.7%); the yield
#    interleave and stage descriptors together 85.0 / 85.0% against 86.5 / 86.3 (x0.984);
#  - sustained (300 timings back to back), nvidia-smi every 20 ms: cuBLASLt at 1,390 MHz
#    (1,275 TFLOP/s), ours at 1,542 MHz (1,103): the card's clock limiter, not a 700 W average.
# This pass:
#  1. per-tensor: the whole tile against piece by piece at 8192^3 (and 4096^3, reported), three
#     processes in alternating order (tma,tile / tile,tma / tma,tile), the first beside
#     torch._scaled_mm.  Rule (set before this pass, on its figures alone): d = tile - tma at
#     8192^3 in points of each process's cuBLASLt; mean d >= +0.5 and every d > 0 -> "make the
#     whole tile the library's for per-tensor fp8 with many tiles" (hopper_auto.c
#     per_tensor_fp8, K past 1024, M N 8192 x 4096 and up); mean d <= -0.5 -> "keep piece by
#     piece"; else "within the spread: keep piece by piece".  A WRONG row -> "revert (wrong)".
#  2. block scales (decides nothing): the library's kernel and its FFMAs as NOPs
#     (CUTEC_SASS_FFMA=nop, wrong by design), 300 timings each with cuBLASLt beside, the SM
#     clock and power of this GPU every 20 ms: how much of the promotion's cost is clock (the
#     FFMAs' power) and how much time; then ncu's SourceCounters of the library's kernel (one
#     launch at 4096x7168x16384), its stalls by SASS instruction into $OUT (csv).
#   BUDGET_S=50 sh scripts/device-bs43.sh
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-bs43: skipped: no GPU here"; exit 0; }
# shellcheck disable=SC2034
start=$(date +%s) budget=${BUDGET_S:-50} log="$out/bs43.log"
# shellcheck disable=SC2034
iters=20
notorch="CUTEC_TORCH_SCALED_MM=/dev/null"
# rows NAME SECONDS 'VAR=VALUE ...' ARGS...: fp8_bench's table into $out/bs43-NAME.txt, its rows shown
rows()
{
    rn=$1 rs=$2 rv=$3
    shift 3
    : >"$out/bs43-$rn.txt"
    device_late "bench $rn" && return
    echo "== $(el) s: $rn (${rv:-the default}): $*"
    # shellcheck disable=SC2086,SC2163
    (if [ -n "$rv" ]; then export $rv; fi; fp8_bench "$rs" "$@") >"$out/bs43-$rn.txt" 2>&1
    grep -E "^[0-9]|rror|WRONG" "$out/bs43-$rn.txt" | head -n 12
}
# this lane's GPU for nvidia-smi (CUDA_VISIBLE_DEVICES when it names one; else every GPU's lines)
gpu_sel=
case ${CUDA_VISIBLE_DEVICES:-} in "" | *,*) ;; *) gpu_sel="-i $CUDA_VISIBLE_DEVICES" ;; esac
# sampled NAME 'VAR=VALUE ...': block scales at 4096x7168x16384, 300 timings, this GPU's SM clock and
# power every 20 ms beside; bs43-NAME.txt, then the busy samples while cuBLASLt ran (before its row
# printed) and while ours did (between the two rows)
sampled()
{
    sn=$1 sv=$2
    : >"$out/bs43-$sn.txt"
    device_late "sampled $sn" && return
    echo "== $(el) s: $sn (${sv:-the default}): 300 timings, clocks sampled"
    # shellcheck disable=SC2086
    nvidia-smi $gpu_sel --query-gpu=index,timestamp,clocks.sm,power.draw,utilization.gpu --format=csv,noheader,nounits \
        -lms 20 >"$out/bs43-$sn-samples.txt" 2>/dev/null &
    sampler=$!
    # shellcheck disable=SC2086,SC2163
    (export $notorch $sv && iters=300 && fp8_bench 14 --scale block --sizes 4096x7168x16384) 2>&1 | stamp \
        >"$out/bs43-$sn-stamps.txt"
    kill "$sampler" 2>/dev/null
    wait "$sampler" 2>/dev/null
    cut -d' ' -f2- "$out/bs43-$sn-stamps.txt" >"$out/bs43-$sn.txt"
    grep -E "^[0-9]|rror" "$out/bs43-$sn.txt" | cut -c1-110
    busy_clocks "$out/bs43-$sn-samples.txt" "$out/bs43-$sn-stamps.txt"
}
# busy_clocks SAMPLES STAMPS: median SM clock (lowest-highest) and median power of the busy samples
# (utilization >= 80%) of each GPU while cuBLASLt ran and while ours did
busy_clocks()
{
    # nvidia-smi's times are local, the stamps UTC
    off=$((($(date +%-H) - $(date -u +%-H)) * 3600 + ($(date +%-M) - $(date -u +%-M)) * 60))
    t_cub=$(awk '$3 ~ /^cublas/ { print $1; exit }' "$2") t_our=$(awk '$3 ~ /^hopper/ { print $1; exit }' "$2")
    if [ -z "$t_cub" ] || [ -z "$t_our" ]; then echo "clocks: no rows stamped" && return; fi
    awk -F', *' -v a="$t_cub" -v b="$t_our" -v off="$off" '
        function secs(hms,   x) { split(hms, x, ":"); return x[1] * 3600 + x[2] * 60 + x[3] }
        NF >= 5 && $5 + 0 >= 80 { split($2, d, " "); t = secs(d[2]) - off
            w = t <= secs(a) ? "cublas" : t <= secs(b) ? "ours" : ""
            if (w != "") { k = w " (GPU " $1 ")"; if (!(k in n)) keys[++nk] = k; n[k]++; c[k, n[k]] = $3 + 0; p[k, n[k]] = $4 + 0 } }
        END { if (!nk) print "clocks: no busy sample"
              for (q = 1; q <= nk; q++) { k = keys[q]; m = n[k]
                for (i = 1; i <= m; i++) { cc[i] = c[k, i]; pp[i] = p[k, i] }
                for (i = 2; i <= m; i++) for (j = i; j > 1 && cc[j - 1] > cc[j]; j--) { x = cc[j]; cc[j] = cc[j - 1]; cc[j - 1] = x }
                for (i = 2; i <= m; i++) for (j = i; j > 1 && pp[j - 1] > pp[j]; j--) { x = pp[j]; pp[j] = pp[j - 1]; pp[j - 1] = x }
                printf("clocks %s: SM %d MHz median (%d-%d), power %.0f W median (nvidia-smi'"'"'s lagging average), %d busy samples\n",
                       k, cc[int((m + 1) / 2)], cc[1], cc[m], pp[int((m + 1) / 2)], m) } }' "$1"
}
# tflops FILE SIZE PAT: the TFLOP/s of the first row at SIZE whose name matches PAT (checked or not)
tflops() { awk -v s="$2" -v pat="$3" '$1 == s && $2 ~ pat { print $4; exit }' "$1" 2>/dev/null; }
{
    gemm_gpu_head
    echo "== per-tensor: the whole tile (tile) against piece by piece (tma), 128 x 256 1x1"
    rows p1 25 "" --scale tensor --sizes 4096,8192 --tile 128x256x128 --cluster 1x1 --store tma,tile
    rows p2 15 "$notorch" --scale tensor --sizes 4096,8192 --tile 128x256x128 --cluster 1x1 --store tile,tma
    rows p3 15 "$notorch" --scale tensor --sizes 4096,8192 --tile 128x256x128 --cluster 1x1 --store tma,tile
    echo "== block scales: the library's kernel and its FFMAs as NOPs, sustained, clocks sampled"
    sampled bdef ""
    sampled bnop "CUTEC_SASS_FFMA=nop"
    echo "== $(el) s: the block-scaled kernel's stalls by SASS instruction (ncu, one launch)"
    blkc="--dtype e4m3 --out-dtype bf16 --layout tn --scale block"
    ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
    if [ -n "$ncu" ] && ! device_late ncu; then
        rm -f "$out/bs43-blk.ncu-rep"
        left=$((budget - $(el) + 10)) && [ "$left" -ge 10 ] || left=10
        # shellcheck disable=SC2086
        timeout "$left" "$ncu" --clock-control none --target-processes all -k "regex:_kernel_[0-9]+$" --launch-skip 1 \
            --launch-count 1 --section SourceCounters --section WarpStateStats --section SpeedOfLight \
            -o "$out/bs43-blk" env $notorch build/cutec bench gemm $blkc --variants hopper --iters 3 \
            --sizes 4096x7168x16384 >"$out/bs43-ncu.txt" 2>&1
        echo "ncu rc $?: $(grep -E "^[0-9]|==ERROR==" "$out/bs43-ncu.txt" | head -n 4 | tr '\n' ' ')"
        timeout 20 "$ncu" --import "$out/bs43-blk.ncu-rep" --page source --csv --print-source sass \
            >"$out/bs43-blk-source.csv" 2>&1
        echo "source page rc $?: $(wc -l <"$out/bs43-blk-source.csv") lines"
        timeout 20 "$ncu" --import "$out/bs43-blk.ncu-rep" --page details >"$out/bs43-blk-details.txt" 2>&1
        grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|Issue Slots Busy|No Eligible|Warp Cycles Per Issued" \
            "$out/bs43-blk-details.txt" | head -n 10
    else echo "ncu: none (or past the budget)"; fi
    echo "== $(el) s: the rules"
    grep -h "torch_smm " "$out/bs43-p1.txt" | head -n 2
    for sz in 4096 8192; do
        echo "per-tensor $sz: tma / tile, % of cuBLASLt (TFLOP/s): $(for f in p1 p2 p3; do
            echo "$(gemm_pct "$out/bs43-$f.txt" $sz -tma) / $(gemm_pct "$out/bs43-$f.txt" $sz -tile) ($(tflops "$out/bs43-$f.txt" $sz -tma) / $(tflops "$out/bs43-$f.txt" $sz -tile));"
        done | tr '\n' ' ')"
    done
    grep -h "^8192 .*-t\(ma\|ile\)+scl.*of torch_smm" "$out/bs43-p1.txt" | sed 's/  */ /g'
    bad=$(cat "$out/bs43-p1.txt" "$out/bs43-p2.txt" "$out/bs43-p3.txt" | grep -c "WRONG")
    for f in p1 p2 p3; do echo "$(gemm_pct "$out/bs43-$f.txt" 8192 -tma) $(gemm_pct "$out/bs43-$f.txt" 8192 -tile)"; done |
        awk -v bad="$bad" '{ if (NF == 2) { d[++n] = $2 - $1; t += $2 - $1 } }
        END { what = "the whole tile (tile) against piece by piece (tma), per-tensor e4m3 8192^3"
            if (bad > 0) { printf "decides: %s: a WRONG row: revert (wrong)\n", what; exit }
            if (n < 2) { printf "decides: %s: %d readings: keep piece by piece\n", what, n; exit }
            low = d[1]; s = ""; for (i = 1; i <= n; i++) { if (d[i] < low) low = d[i]; s = s sprintf(" %+.2f", d[i]) }
            m = t / n
            if (m >= 0.5 && low > 0) printf "decides: %s: mean %+.2f points (%s), none behind: make the whole tile the library'"'"'s for per-tensor fp8 with many tiles\n", what, m, s
            else if (m <= -0.5) printf "decides: %s: mean %+.2f points (%s): keep piece by piece\n", what, m, s
            else printf "decides: %s: mean %+.2f points (%s): within the spread, keep piece by piece\n", what, m, s }'
    d=$(tflops "$out/bs43-bdef.txt" 4096 "^hopper") n=$(tflops "$out/bs43-bnop.txt" 4096 "^hopper")
    cd_=$(tflops "$out/bs43-bdef.txt" 4096 "^cublas") cn=$(tflops "$out/bs43-bnop.txt" 4096 "^cublas")
    echo "block, sustained: ours ${d:-?} TFLOP/s (cuBLASLt ${cd_:-?}), FFMAs as NOPs ${n:-?} (cuBLASLt ${cn:-?}); the clocks above"
    echo "decides: nothing from the block-scaled diagnostics (the NOP row is wrong by design)"
    fp8_clocks
} >"$log" 2>&1
fp8_show "$log"
