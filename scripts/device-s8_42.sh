#!/bin/sh
# Engineer s8_42 (issue 13: tf32, s8 and e4m3 on the SM80 kernel at 80% of their mma.sync
# ceilings, 4096^3 and 8192^3), the mid pass: where each dtype stands in one run, and e4m3's
# tiling.  Under 50 s of GPU work on one H200 after the lead's `make all tests` (BUDGET_S,
# default 50: a step past it prints "skipped").  Logs under $OUT (s8_42*.txt, s8_42.log).
#
# The count behind it (bench/RESULTS.md, s8_42): on sm_90a the library's e4m3 MMA
# (SM89_16x8x32_F32E4M3E4M3F32_TN_VIA_F16) is 12 cvt.rn.f16x2.e4m3x2 and two f16 HMMAs in its
# PTX, but ptxas merges the conversions of a fragment across the MMAs that share it: the
# 256x128x128 kernel's k-loop (nvdisasm of ptxas 13.0's cubin) is 256 HMMA.16816.F32, 256
# F2FP.F16.E4M3.UNPACK_B, 32 LDSM and 88 others a k-tile: each fragment converted once a
# k-step (A's 4 x 8 + B's 8 x 4 = 64 F2FP for 64 HMMA a warp), one F2FP an HMMA, the least a
# 64 x 64 warp tile can have.  So the "convert once" form is what runs; what is left to try
# without new code is the tiling (e4m3 never had s8's 128x128x128 two blocks an SM).
#
# Steps:
#   1. on the GPU against float64 FIRST (every element): e4m3 -> bf16 tn 1030x777x520 alpha 2
#      beta -1 at the default tiling and at t128; tf32 tn and s8 tn (the defaults);
#   2. `cutec bench mma --dtypes bf16,f16,tf32,s8,e4m3`: this run's ceilings (the "e4m3" row is
#      ptxas's lowering of mma.sync e4m3, the "e4m3 via f16" row the library's instruction with
#      its 12 conversions every MMA; the e4m3 GEMM's ceiling is f16's: its work is f16 HMMAs);
#   3. e4m3 -> bf16 tn at 4096^3 and 8192^3, the default (256x128x128, 4x2 warps, 3 stages, one
#      block an SM) and t128 (--tile 128x128x128 --warps 2x2 --stages 3: s8's tiling, two
#      blocks an SM), in turns: default, t128, default, t128 (a process each, cuBLASLt beside);
#   4. tf32 tn and s8 tn at 4096^3 and 8192^3, the defaults, cuBLAS beside (the standings);
#   5. Nsight Compute on one launch of the e4m3 default at 4096^3: instructions by pipe and
#      each pipe's busy share, issue slots, stall reasons (which pipe F2FP takes and how busy);
#   6. torch._int_mm at 4096^3 and 8192^3 (s8's other reference), if time is left.
# The rule ("decides:"), in points of this run's f16 mma.sync ceiling: t128 at least 1 point
# ahead of the default at 4096^3 in both pairs -> by_size (src/kernels/gemm/lib.c) gets an e4m3
# and e5m2 row for M N <= 4096^2 at t128 (and for every size if also 1 point ahead at 8192^3 in
# both pairs); t128 WRONG or behind -> nothing changes (a command-line trial: no code to
# delete); else "within the spread: the default stays".  The standings lines say each dtype's
# points of its ceiling against issue 13's 80.
# shellcheck disable=SC2086 # $E4 and $T128 are lists of options
. scripts/device-common.sh
log="$out/s8_42.log"
start=$(date +%s)
budget=${BUDGET_S:-50}
iters=${ITERS:-10}
T128="--tile 128x128x128 --warps 2x2 --stages 3"
E4="--dtype e4m3 --out-dtype bf16 --layout tn"
bad_t128=0 bad_default=0

# check FORM ARGS...: `cutec run gemm` on the GPU against float64 (every element); a form
# whose line is not "verified" is marked bad
check()
{
    form=$1
    shift
    device_late "run $form" && return
    # shellcheck disable=SC2068
    r=$(timeout 15 build/cutec run gemm --backend cuda --variant tensorop_smem --iters 2 $@ 2>&1 |
        grep -iE "verified|wrong|rror|fail" | head -n 2 | tr '\n' ' ')
    echo "run $form ($*): $r"
    case "$r" in
    *verified*) ;;
    *)
        echo "   ^ NOT verified"
        [ "$form" = e4m3-t128 ] && bad_t128=1
        [ "$form" = e4m3-default ] && bad_default=1
        ;;
    esac
}

# ceiling NAME: the rate of `bench mma`'s row NAME ("e4m3" and "e4m3 via f16" apart)
ceiling()
{
    awk -v want="$1" '
        { name = $1; if ($2 == "via") name = $1 " " $2 " " $3 }
        name == want { for (i = 2; i <= NF; i++) if ($i == "TOPS" || $i == "TFLOP/s") { print $(i - 1); exit } }' \
        "$out/s8_42-mma.txt" 2>/dev/null
}

# rate FILE SIZE KERNEL: the TFLOP/s (TOPS) of KERNEL's row at SIZE in a bench's rows; empty
# if none or its check failed
rate()
{
    awk -v s="$2" -v k="$3" '$1 == s && $2 == k && $4 ~ /^[0-9.]+$/ && $0 !~ /WRONG|FAIL/ { print $4; exit }' "$1" 2>/dev/null
}

# pts RATE CEILING: points of the ceiling (2 decimals), empty if either is
pts() { awk -v r="$1" -v c="$2" 'BEGIN { if (r != "" && c != "" && c > 0) printf("%.2f", 100 * r / c) }'; }

decide()
{
    echo "== standings and decisions ($(el) s)"
    f16=$(ceiling f16) bf16=$(ceiling bf16) tf32=$(ceiling tf32) s8=$(ceiling s8)
    e4=$(ceiling e4m3) e4v=$(ceiling "e4m3 via f16")
    echo "ceilings: f16 ${f16:-none}, bf16 ${bf16:-none}, tf32 ${tf32:-none} TFLOP/s, s8 ${s8:-none} TOPS;" \
        "e4m3 row ${e4:-none}, e4m3 via f16 row ${e4v:-none}"
    for s in 4096 8192; do
        t=$(rate "$out/s8_42-tf32.txt" $s tensorop_smem) i=$(rate "$out/s8_42-s8.txt" $s tensorop_smem)
        echo "standing $s^3: tf32 ${t:-none} = $(pts "$t" "$tf32") points of tf32's ceiling" \
            "(cuBLAS $(rate "$out/s8_42-tf32.txt" $s cublas)); s8 ${i:-none} = $(pts "$i" "$s8")" \
            "(cuBLAS $(rate "$out/s8_42-s8.txt" $s cublas))"
    done
    lead4=0 lost4=0 lead8=0 none=0
    for i in 1 2; do
        for s in 4096 8192; do
            d=$(rate "$out/s8_42-default$i.txt" $s tensorop_smem) t=$(rate "$out/s8_42-t128$i.txt" $s tensorop_smem)
            pd=$(pts "$d" "$f16") pt=$(pts "$t" "$f16")
            echo "e4m3 pair $i $s^3: default ${d:-none} (${pd:-none} points of f16's ceiling), t128 ${t:-none}" \
                "(${pt:-none}); cuBLASLt $(rate "$out/s8_42-default$i.txt" $s cublas)"
            if [ -z "$pd" ] || [ -z "$pt" ]; then
                [ $s = 4096 ] && none=$((none + 1))
                continue
            fi
            ahead=$(awk -v a="$pd" -v b="$pt" 'BEGIN { print (b - a >= 1.0) ? 1 : 0 }')
            behind=$(awk -v a="$pd" -v b="$pt" 'BEGIN { print (a - b >= 0.3) ? 1 : 0 }')
            [ $s = 4096 ] && lead4=$((lead4 + ahead)) && lost4=$((lost4 + behind))
            [ $s = 8192 ] && lead8=$((lead8 + ahead))
        done
    done
    grep -qE "WRONG|FAIL" "$out/s8_42-t1281.txt" "$out/s8_42-t1282.txt" 2>/dev/null && bad_t128=1
    if [ "$bad_t128" = 1 ] || [ "$bad_default" = 1 ]; then
        echo "decides: e4m3 t128: nothing changes (a form not verified against float64: default $bad_default, t128 $bad_t128)"
    elif [ "$none" -gt 0 ]; then
        echo "decides: e4m3 t128: nothing changes (no figures at 4096^3 in $none of the two pairs)"
    elif [ "$lead4" -eq 2 ] && [ "$lead8" -eq 2 ]; then
        echo "decides: e4m3 t128 the library's for every size (lib.c by_size: e4m3 and e5m2 rows, INT64_MAX)"
    elif [ "$lead4" -eq 2 ]; then
        echo "decides: e4m3 t128 the library's up to 4096^2 (lib.c by_size: e4m3 and e5m2 rows, 4096LL * 4096)"
    elif [ "$lost4" -eq 2 ]; then
        echo "decides: e4m3 t128 slower: the default stays (nothing to delete)"
    else
        echo "decides: e4m3 t128 within the spread: the default stays"
    fi
    echo "decides: issue 13's marks in this run (80 points): see the standing and pair lines above"
}

# e4m3_ncu: one launch of the e4m3 default at 4096^3 under Nsight Compute, its pipes and stalls
e4m3_ncu()
{
    device_late ncu && return
    lim=$((budget - $(el)))
    [ "$lim" -lt 8 ] && echo "-- skipped (under 8 s of the budget left): ncu" && return
    [ "$lim" -gt 25 ] && lim=25
    ncu=$(command -v ncu 2>/dev/null)
    for c in /usr/local/cuda/bin/ncu /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
        [ -z "$ncu" ] && [ -x "$c" ] && ncu=$c
    done
    [ -z "$ncu" ] && echo "ncu: none found" && return
    m="gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__issue_active.avg.pct_of_peak_sustained_active"
    m="$m,smsp__inst_executed.sum,regex:^sm__inst_executed_pipe_[a-z0-9_]+\.sum$"
    m="$m,regex:^sm__pipe_[a-z0-9_]+_cycles_active\.avg\.pct_of_peak_sustained_active$"
    m="$m,regex:^smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active\.ratio$"
    # shellcheck disable=SC2086
    timeout "$lim" "$ncu" --clock-control none --launch-skip 2 --launch-count 1 --print-units base --metrics "$m" \
        build/cutec run gemm --backend cuda --variant tensorop_smem $E4 --m 4096 --n 4096 --k 4096 --iters 3 \
        >"$out/s8_42-ncu.txt" 2>&1
    echo "ncu ($(el) s): $(grep -cE '__' "$out/s8_42-ncu.txt") metric lines; the nonzero pipes and the top stalls:"
    grep -m 2 -E "multistage_kernel|verified" "$out/s8_42-ncu.txt" | cut -c1-160
    awk '$1 ~ /^(gpu__time|sm__cycles_elapsed|smsp__issue_active|smsp__inst_executed\.sum)/ { print "  " $1, $NF }
         $1 ~ /^sm__inst_executed_pipe_/ && $NF + 0 > 0 { print "  " $1, $NF }
         $1 ~ /^sm__pipe_.*pct/ && $NF + 0 >= 1 { print "  " $1, $NF }
         $1 ~ /issue_stalled/ && $NF + 0 >= 0.05 { print "  " $1, $NF }' "$out/s8_42-ncu.txt" | head -n 60
    grep -m 3 -iE "error|==ERROR|unknown" "$out/s8_42-ncu.txt" | cut -c1-200
}

{
    sm80_gpu " (s8_42)"
    if [ "$budget" -ge 0 ]; then
        device_begin
        start=$(date +%s) # the budget counts the GPU steps, not the build
        echo "== 1. on the GPU against float64 first (every element)"
        check e4m3-default $E4 --m 1030 --n 777 --k 520 --alpha 2 --beta -1
        # shellcheck disable=SC2086
        check e4m3-t128 $E4 $T128 --m 1030 --n 777 --k 520 --alpha 2 --beta -1
        check tf32 --dtype tf32 --layout tn --m 1030 --n 777 --k 520 --alpha 2 --beta -1
        check s8 --dtype s8 --layout tn --m 1030 --n 777 --k 520 --alpha 3 --beta -2
        echo "== 2. bench mma ($(el) s)"
        device_late mma || timeout 20 build/cutec bench mma --dtypes bf16,f16,tf32,s8,e4m3 --iters 3 2>&1 |
            grep -vE "^#" | tee "$out/s8_42-mma.txt"
        echo "== 3. e4m3 -> bf16 tn: default, t128, default, t128 ($(el) s)"
        for i in 1 2; do
            BENCH_TIMEOUT=12 device_bench_gemm $E4 --sizes 4096,8192 >"$out/s8_42-default$i.txt"
            echo "default $i:" && cat "$out/s8_42-default$i.txt"
            # shellcheck disable=SC2086
            BENCH_TIMEOUT=12 device_bench_gemm $E4 $T128 --sizes 4096,8192 >"$out/s8_42-t128$i.txt"
            echo "t128 $i:" && cat "$out/s8_42-t128$i.txt"
        done
        echo "== 4. tf32 and s8 tn, the defaults ($(el) s)"
        iters=5
        BENCH_TIMEOUT=12 device_bench_gemm --dtype tf32 --layout tn --sizes 4096,8192 >"$out/s8_42-tf32.txt"
        cat "$out/s8_42-tf32.txt"
        BENCH_TIMEOUT=10 device_bench_gemm --dtype s8 --layout tn --sizes 4096,8192 >"$out/s8_42-s8.txt"
        cat "$out/s8_42-s8.txt"
        echo "== 5. ncu: the e4m3 default at 4096^3 ($(el) s)"
        e4m3_ncu
        echo "== 6. torch._int_mm ($(el) s)"
        lim=$((budget - $(el)))
        [ "$lim" -gt 12 ] && lim=12
        [ "$lim" -lt 6 ] && echo "-- skipped (under 6 s of the budget left): torch"
        [ "$lim" -lt 6 ] || (cd bench && timeout "$lim" python3 torch_int_mm.py 4096x4096x4096 8192x8192x8192 2>&1 | tail -n 3)
        decide
        device_end
    fi
} 2>&1 | stdbuf -oL -eL tee "$log"
