#!/bin/sh
# Issue 15's two fp8 marks (engineer bs43, session 43) on one H200, under 50 s of GPU work after
# the lead's `make all tests` (nothing built here); log $OUT/bs43.log.
#  1. e4m3 per-tensor at 8192^3 (106.3% of torch._scaled_mm in session 42's census, asks 110%):
#     the library gives per-tensor fp8 the plan's defaults (128 x 256, 1x1, C by TMA piece by
#     piece; hopper_auto.c's rows were measured on 16-bit GEMMs only).  The count: a tile's
#     main loop at K 8192 is 64 k-tiles of ~1,000 clocks, and its piece-by-piece epilogue (SASS:
#     ~790 instructions a warp with 8 barrier waits, both warpgroups at once, the tensor core
#     idle) a few thousand clocks: ~3-5% of the time, half that at K 16384 (where the same tile
#     runs 1,533-1,573 against 1,514 here); the whole tile's store (`tile`: the stores run
#     under the next main loop) and 2x1 clusters (B multicast) are what the bf16 many-tiles
#     row takes.  The sweep: 128 x 256 x clusters {1x1, 2x1} x C's store {auto, tile} in one
#     process beside torch._scaled_mm (s1), again in the reverse order without torch (s2).
#  2. block scales at 4096x7168x16384 (1,275 TFLOP/s, asks 1,450): 256 x 128 1x2 (the library's)
#     with 4 stages (`--stages 4`: one C buffer a 64-row box, 32 KB, where two leave room for
#     3 stages of 48 KB; hopper_store.c one_buffer_for_stages) beside 3, and 128 x 192 1x2 (a
#     warpgroup's wave 64 x 192 reads 0.0203 B of shared memory a MAC against 64 x 128's
#     0.0229; 96 sums + 96 partials at 240 registers; 4096x7168: 38 column tiles, 10 rounds at
#     90.5% used, 8192^3 21 at 98.5%), at both block-scaled shapes; then the two opt-in forms
#     that each led by under the 2% bar, together: CUTEC_SASS_FFMA_YIELD=1 (fp8y, x1.010) and
#     CUTEC_WGMMA_DESC=stage (desc/dec-fp8, x1.015 / x1.000; SASS: the k-loop 287 -> 264
#     instructions a warp), in turns with the default (b1, y1, b2, y2).
#  3. what the block-scaled kernel's warps wait on (decides nothing): the SM clock and power
#     (nvidia-smi every 20 ms) while cuBLASLt and ours run in b1 (is ours slower at the power
#     cap, its FFMAs drawing power?); its SASS (`cutec compile --emit sass`) and ncu's
#     SourceCounters of one launch at 4096x7168x16384 (`--page source --print-source sass`,
#     csv) into $OUT for reading.
# Order by priority (checks, s1, the block tiles, b1, the profile, then y1 and the second
# readings s2, b2, y2 while the budget lasts).  Every new form first against float64 on the GPU
# (`cutec run gemm`, every element, 1021x1016x1024, C row-major), every bench row against 256
# float64 samples; a form not verified decides nothing ("revert (wrong)").
# Decides:
#  per-tensor: the best non-default row by the mean of its two sweeps' % of cuBLASLt; if it leads
#     the default (1x1-t128x256x128-sauto) by >= 1.0 point in both sweeps -> "make it the
#     library's per-tensor fp8 tiling for many tiles" (hopper_auto.c), else "keep the default";
#  block: both / def (mean % of cuBLASLt of its two processes): >= 1.02 -> "make both defaults";
#     <= 0.99 -> "leave both opt-in, no gain together"; else "within the spread".
#   BUDGET_S=50 sh scripts/device-bs43.sh
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-bs43: skipped: no GPU here"; exit 0; }
# shellcheck disable=SC2034
start=$(date +%s) budget=${BUDGET_S:-50} log="$out/bs43.log"
# shellcheck disable=SC2034
iters=20
gemm="--dtype e4m3 --out-dtype bf16 --variant hopper --layout tnt"
right='' wrong=''
# check NAME 'VAR=VALUE ...' ARGS...: `cutec run gemm` (every element against float64) of ARGS
check()
{
    cn=$1 cv=$2
    shift 2
    device_late "check $cn" && return
    # shellcheck disable=SC2086,SC2163
    r=$(if [ -n "$cv" ]; then export $cv; fi; timeout 12 build/cutec run gemm $gemm --m 1021 --n 1016 --k 1024 "$@" 2>&1 |
        grep -E "verified|WRONG|FAIL|rror|refus|unsupported" | head -n 2 | tr '\n' ' ')
    echo "check $cn ($cv $*): $r"
    case $r in *WRONG* | *FAIL*) wrong="$wrong $cn " ;; *verified*) right="$right $cn " ;; *) wrong="$wrong $cn " ;; esac
}
ok() { case $wrong in *" $1 "*) return 1 ;; esac; case $right in *" $1 "*) return 0 ;; esac; return 1; }
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
    grep -E "^[0-9]|rror|WRONG|clock after" "$out/bs43-$rn.txt" | head -n 16
}
# pct NAME PAT: % of cuBLAS (checked ok) of row PAT in bs43-NAME.txt
pct() { gemm_pct "$out/bs43-$1.txt" "" "$2"; }
notorch="CUTEC_TORCH_SCALED_MM=/dev/null"
# busy_clocks SAMPLES STAMPS: the busy samples (utilization >= 80%) of nvidia-smi's SAMPLES split by
# the stamped bench rows in STAMPS (cuBLASLt's row printed first: before it cuBLASLt ran, between it
# and ours' row ours did): median SM clock (lowest-highest) and median power of each
busy_clocks()
{
    # nvidia-smi's times are local, the stamps UTC
    off=$((($(date +%-H) - $(date -u +%-H)) * 3600 + ($(date +%-M) - $(date -u +%-M)) * 60))
    t_cub=$(awk '$3 ~ /^cublas/ { print $1; exit }' "$2") t_our=$(awk '$3 ~ /^hopper/ { print $1; exit }' "$2")
    if [ -z "$t_cub" ] || [ -z "$t_our" ]; then echo "clocks: no rows stamped" && return; fi
    awk -F', *' -v a="$t_cub" -v b="$t_our" -v off="$off" '
        function secs(hms,   x) { split(hms, x, ":"); return x[1] * 3600 + x[2] * 60 + x[3] }
        NF >= 4 && $4 + 0 >= 80 { split($1, d, " "); t = secs(d[2]) - off
            w = t <= secs(a) ? "cublas" : t <= secs(b) ? "ours" : ""
            if (w != "") { n[w]++; c[w, n[w]] = $2 + 0; p[w, n[w]] = $3 + 0 } }
        END { for (k = 0; k < 2; k++) { w = k ? "ours" : "cublas"; m = n[w]
                if (!m) { printf("clocks %s: no busy sample\n", w); continue }
                for (i = 1; i <= m; i++) { cc[i] = c[w, i]; pp[i] = p[w, i] }
                for (i = 2; i <= m; i++) for (j = i; j > 1 && cc[j - 1] > cc[j]; j--) { x = cc[j]; cc[j] = cc[j - 1]; cc[j - 1] = x }
                for (i = 2; i <= m; i++) for (j = i; j > 1 && pp[j - 1] > pp[j]; j--) { x = pp[j]; pp[j] = pp[j - 1]; pp[j - 1] = x }
                printf("clocks %s: SM %d MHz median (%d-%d), power %.0f W median, %d busy samples\n", w,
                       cc[int((m + 1) / 2)], cc[1], cc[m], pp[int((m + 1) / 2)], m) } }' "$1"
}
both="CUTEC_SASS_FFMA_YIELD=1 CUTEC_WGMMA_DESC=stage"
{
    gemm_gpu_head
    echo "== $(el) s: against float64 on the GPU (1021x1016x1024, every element)"
    check t256tile "" --scale tensor --tile 128x256x128 --cluster 2x1 --store tile
    check b4 "" --scale block --tile 256x128x128 --cluster 1x2 --stages 4
    check b192 "" --scale block --tile 128x192x128 --cluster 1x2
    check both "$both" --scale block
    echo "== per-tensor 8192^3: the sweep, torch._scaled_mm beside"
    rows s1 25 "" --scale tensor --sizes 8192 --tile 128x256x128 --cluster 1x1,2x1 --store auto,tile
    echo "== block scales: the one-set loop's tiles, both shapes, one process"
    rows bt 25 "$notorch" --scale block --sizes 4096x7168x16384,8192 --tile 256x128x128,128x192x128 --cluster 1x2
    rows bt4 14 "$notorch" --scale block --sizes 4096x7168x16384,8192 --tile 256x128x128 --cluster 1x2 --stages 4
    echo "== block scales 4096x7168x16384: default and both forms in turns"
    # b1 with the SM clock and power sampled every 20 ms (does the block-scaled kernel run at a
    # lower clock than cuBLASLt beside it, at the card's power cap?)
    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,utilization.gpu --format=csv,noheader,nounits -lms 20 \
        >"$out/bs43-b1-samples.txt" 2>/dev/null &
    sampler=$!
    echo "== $(el) s: b1 (the default, 300 iterations, clocks sampled)"
    : >"$out/bs43-b1-stamps.txt"
    device_late b1 || (export CUTEC_TORCH_SCALED_MM=/dev/null && iters=300 && fp8_bench 14 --scale block --sizes 4096x7168x16384) 2>&1 | stamp \
        >"$out/bs43-b1-stamps.txt"
    cut -d' ' -f2- "$out/bs43-b1-stamps.txt" >"$out/bs43-b1.txt"
    grep -E "^[0-9]|rror|WRONG" "$out/bs43-b1.txt"
    kill "$sampler" 2>/dev/null
    wait "$sampler" 2>/dev/null
    busy_clocks "$out/bs43-b1-samples.txt" "$out/bs43-b1-stamps.txt"
    echo "== $(el) s: the block-scaled kernel's SASS and stalls by instruction"
    blkc="--dtype e4m3 --out-dtype bf16 --variant hopper --layout tn --arch sm_90a --scale block"
    # shellcheck disable=SC2086
    timeout 20 build/cutec compile gemm $blkc --m 4096 --n 7168 --k 16384 --emit sass >"$out/bs43-blk.sass" 2>&1
    echo "sass: $(grep -c QGMMA "$out/bs43-blk.sass") QGMMA, $(grep -c FFMA "$out/bs43-blk.sass") FFMA lines"
    ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
    if [ -n "$ncu" ] && ! device_late ncu; then
        rm -f "$out/bs43-blk.ncu-rep"
        left=$((budget - $(el) + 10)) && [ "$left" -ge 10 ] || left=10
        # shellcheck disable=SC2086
        timeout "$left" "$ncu" --clock-control none --target-processes all -k "regex:_kernel_[0-9]+$" --launch-skip 1 \
            --launch-count 1 --section SourceCounters --section WarpStateStats --section SpeedOfLight \
            -o "$out/bs43-blk" env $notorch build/cutec bench gemm $blkc --layout tn --variants hopper --iters 3 \
            --sizes 4096x7168x16384 >"$out/bs43-ncu.txt" 2>&1
        echo "ncu rc $?: $(grep -E "^[0-9]|==ERROR==|==PROF==" "$out/bs43-ncu.txt" | head -n 4 | tr '\n' ' ')"
        timeout 20 "$ncu" --import "$out/bs43-blk.ncu-rep" --page source --csv --print-source sass \
            >"$out/bs43-blk-source.csv" 2>&1
        echo "source page rc $?: $(wc -l <"$out/bs43-blk-source.csv") lines"
        timeout 20 "$ncu" --import "$out/bs43-blk.ncu-rep" --page details >"$out/bs43-blk-details.txt" 2>&1
        grep -E "Duration|SM Frequency|Compute \(SM\)|Issue Slots|No Eligible|Stall|Warp Cycles" \
            "$out/bs43-blk-details.txt" | head -n 16
    else echo "ncu: none (or past the budget)"; fi
    echo "== $(el) s: if the budget has room: the second readings"
    rows y1 10 "$notorch $both" --scale block --sizes 4096x7168x16384
    rows s2 20 "$notorch" --scale tensor --sizes 8192 --tile 128x256x128 --cluster 2x1,1x1 --store tile,auto
    rows b2 10 "$notorch" --scale block --sizes 4096x7168x16384
    rows y2 10 "$notorch $both" --scale block --sizes 4096x7168x16384
    echo "== $(el) s: the rules"
    # per-tensor: every row of s1/s2/s3 as "name p1 p2" (s3's rows once, p2 = p1)
    def="hopper1x1-t128x256x128-sauto+scl"
    defre="^hopper1x1-t128x256x128-sauto[+]scl\$"
    d1=$(pct s1 "$defre") d2=$(pct s2 "$defre")
    [ -n "$d2" ] || { d2=$d1 && echo "(s2 not run: one sweep's readings only)"; }
    echo "per-tensor default ($def): ${d1:-?} / ${d2:-?} % of cuBLASLt"
    grep -h "^8192 .*torch_smm " "$out/bs43-s1.txt" | head -n 1
    best=$(for f in s1 s2; do awk -v f=$f '$1 == 8192 && $2 ~ /^hopper/ && / ok/ { p = $5; sub("%", "", p); print f, $2, p }' \
        "$out/bs43-$f.txt"; done | awk -v def="$def" '$2 != def { s[$2] = s[$2] " " $3; n[$2]++; t[$2] += $3 }
        END { for (k in n) printf "%.3f %s%s\n", t[k] / n[k], k, s[k] }' | sort -rn)
    echo "$best" | sed 's/^/  mean, row, readings: /'
    top=$(echo "$best" | head -n 1)
    tn=$(echo "$top" | awk '{ print $2 }')
    echo "$top" | awk -v d1="${d1:-0}" -v d2="${d2:-0}" -v okk="$(ok t256tile && echo 1)" '{
        p1 = $3; p2 = (NF >= 4) ? $4 : $3
        if (okk != 1) printf "decides: per-tensor: a form not verified against float64: revert (wrong); keep the default\n"
        else if (d1 == 0 || d2 == 0 || NF < 3) printf "decides: per-tensor: not measured; keep the default\n"
        else if (p1 - d1 >= 1.0 && p2 - d2 >= 1.0) printf "decides: per-tensor 8192^3: %s leads the default by %+.2f / %+.2f points of cuBLASLt: make it the library'"'"'s per-tensor fp8 tiling for many tiles (hopper_auto.c)\n", $2, p1 - d1, p2 - d2
        else printf "decides: per-tensor 8192^3: the best other row %s at %+.2f / %+.2f points: under the 1-point bar, keep the default\n", $2, p1 - d1, p2 - d2 }'
    echo "best other: ${tn:-none}"
    b1=$(pct b1 "[+]blk\$") b2=$(pct b2 "[+]blk\$") y1=$(pct y1 "[+]blk\$") y2=$(pct y2 "[+]blk\$")
    echo "block: default ${b1:-?} / ${b2:-?}, both ${y1:-?} / ${y2:-?} % of cuBLASLt"
    echo "${b1:-0} ${b2:-0} ${y1:-0} ${y2:-0}" | awk -v okk="$(ok both && echo 1)" '{
        if (okk != 1) { print "decides: block: a form not verified against float64: revert (wrong)"; exit }
        if ($2 == 0) $2 = $1; if ($4 == 0) $4 = $3  # (one pair where the budget ran out)
        if ($1 == 0 || $3 == 0) { print "decides: block: not measured; leave both opt-in"; exit }
        r = ($3 + $4) / ($1 + $2)
        if (r >= 1.02) printf "decides: block: yield + stage descriptors x%.4f >= 1.02: make both defaults\n", r
        else if (r <= 0.99) printf "decides: block: yield + stage descriptors x%.4f <= 0.99: no gain together, leave both opt-in\n", r
        else printf "decides: block: yield + stage descriptors x%.4f: within the spread, leave both opt-in\n", r }'
    for sz in 4096 8192; do
        echo "block tiles at $sz: $(awk -v s=$sz '$1 == s && $2 ~ /^hopper/ { print $2, ($0 ~ / ok/ ? $5 : "not-ok") }' \
            "$out/bs43-bt.txt" | tr '\n' ';')"
    done
    s3a=$(gemm_pct "$out/bs43-bt.txt" 4096 "^hopper1x2-t256x128x128[+]blk\$") s3b=$(gemm_pct "$out/bs43-bt.txt" 8192 "^hopper1x2-t256x128x128[+]blk\$")
    s4a=$(gemm_pct "$out/bs43-bt4.txt" 4096 "[+]blk\$") s4b=$(gemm_pct "$out/bs43-bt4.txt" 8192 "[+]blk\$")
    echo "block 256 x 128 1x2, 3 stages (two C buffers a box) / 4 stages (one): 4096x7168x16384 ${s3a:-?} / ${s4a:-?}, 8192^3 ${s3b:-?} / ${s4b:-?} % of cuBLASLt"
    echo "${s3a:-0} ${s4a:-0} ${s3b:-0} ${s4b:-0}" | awk -v okk="$(ok b4 && echo 1)" '{
        if (okk != 1) { print "decides: block 4 stages: not verified against float64: revert (wrong)"; exit }
        if ($1 == 0 || $2 == 0 || $3 == 0 || $4 == 0) { print "decides: block 4 stages: not measured; keep 3"; exit }
        if ($2 - $1 >= 1 && $4 - $3 >= 1) printf "decides: block 4 stages lead by %+.1f / %+.1f points: make them the library'"'"'s (block_scaled(), hopper_auto.c), the final pass confirms\n", $2 - $1, $4 - $3
        else if ($2 - $1 <= -1 && $4 - $3 <= -1) printf "decides: block 4 stages behind by %+.1f / %+.1f points: delete the one-buffer form\n", $2 - $1, $4 - $3
        else printf "decides: block 4 stages %+.1f / %+.1f points: within the spread, time again in the final pass\n", $2 - $1, $4 - $3 }'
    echo "decides: nothing from the block tiles alone (the library keeps 256 x 128 1x2 unless a row leads it by 2 points at both shapes; then the final pass confirms)"
    fp8_clocks
} >"$log" 2>&1
fp8_show "$log"
