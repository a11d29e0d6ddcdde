#!/bin/sh
# The Hopper GEMM as a programmatic dependent launch (issue 15: 2048^3 at 97.8% of cuBLAS;
# engineer pdl): CUTEC_GEMM_PDL=1 launches each call with cuLaunchKernelEx's programmatic
# stream serialization, the kernel waiting (griddepcontrol.wait) after its barriers' init and
# letting the next grid in (launch_dependents) once its producer has issued its last loads;
# CUTEC_GEMM_PDL=early lets it in right after the wait.  The bench's timing loop calls back
# to back on one stream (the default), which is where PDL can act.  About 70 s on one H200
# after `make all tests`; every bench row is checked before it is timed (sampled against
# float64, and against cuBLAS's elements), cuBLAS in the same process.
#   1. hopper_pdl_test on the GPU: chains of 4 dependent GEMMs (each reads what the one before
#      wrote, and writes what it read), 512 x 512 x 512 (8 blocks: the next grid starts on
#      free SMs at once), cooperative / ping-pong / 2x1, PDL 1 and early, against float64.
#   2. base (CUTEC_GEMM_PDL=0) and P (=1), each at 2048^3, 4096^3 and 8192 x 8192 x 1024
#      (the library's choice at each); then P and base at 2048^3 again; then E (=early) at
#      2048^3, if the budget leaves room.
# Decides (percent of cuBLAS in the same process; a point = 1% of cuBLAS):
#   P - base at 2048^3 (the mean of both runs of each) >= 1.0 point, and P - base >= -0.3
#   at 4096^3 and at 8192 x 8192 x 1024 -> make default: by_default "1" in
#   src/kernels/gemm/hopper_plan.c (dependent_launch); else keep opt-in (CUTEC_GEMM_PDL=1).
#   E decides nothing on its own (one size): a note of E - P at 2048^3.  A failed step 1
#   keeps it opt-in whatever the figures.
# No step starts past BUDGET_S (default 66 s), each under its own timeout.
#   ITERS=10 sh scripts/device-pdl.sh   (log: $OUT/pdl.log, default build/device-out)
. scripts/device-common.sh
log="$out/pdl.log"
rows="$out/pdl-rows.txt"
start=$(date +%s)
budget=${BUDGET_S:-66}
checked=yes
: >"$rows"
form()
{
    case $1 in
    base) echo "CUTEC_GEMM_PDL=0" ;;
    P) echo "CUTEC_GEMM_PDL=1" ;;
    E) echo "CUTEC_GEMM_PDL=early" ;;
    esac
}
bench()
{
    f=$1 lim=$2 s=$3
    device_late "$f $s" && return
    echo "-- form=$f at $(($(date +%s) - start)) s: --sizes $s" | tee -a "$rows"
    # shellcheck disable=SC2046
    env $(form "$f") timeout "$lim" stdbuf -oL -eL build/cutec bench gemm --dtype bf16 --layout tn --sizes "$s" \
        --variants hopper --iters "$iters" 2>&1 | stamp | quiet | tee -a "$rows"
}
# records: "FORM SHAPE PCT" of every hopper row checked ok ("# M" names a size's shape until
# its "SM clock" line)
records()
{
    awk '/^-- form=/ { split($2, a, "="); f = a[2]; shape = ""; next }
        $2 == "#" && $3 == "M" { m = $4; n = $6; k = $8; gsub(/[,:]/, "", m); gsub(/[,:]/, "", n); gsub(/[,:]/, "", k)
                                 shape = m "x" n "x" k; next }
        $2 == "#" && $3 == "SM" { shape = ""; next }
        $NF == "ok" && $3 == "hopper" { p = $6; sub("%", "", p); print f, (shape != "" ? shape : $2 "^3"), p }' "$rows"
}
# delta A B SHAPE: B - A in points (each form's runs' mean) at SHAPE, "" if either has none
delta()
{
    records | awk -v A="$1" -v B="$2" -v S="$3" '$2 == S { s[$1] += $3; c[$1]++ }
        END { if (c[A] && c[B]) printf("%.2f %.2f %d %.2f %d\n", s[B] / c[B] - s[A] / c[A], s[B] / c[B], c[B], s[A] / c[A], c[A]) }'
}
{
    gemm_gpu_head
    timeout 40 make -j16 build/cutec build/tests/kernels/gemm/hopper_pdl_test 2>&1 | grep -E "error|warning" | head -20
    echo "== 1. chains of dependent GEMMs on the GPU against float64 (PDL 1 and early)"
    if [ "$budget" -ge 0 ]; then
        CUTEC_TEST_GPU_ONLY=1 timeout 25 build/tests/kernels/gemm/hopper_pdl_test >"$out/hopper_pdl_test.log" 2>&1
        rc=$?
        echo "hopper_pdl_test (rc $rc): $(tail -n 1 "$out/hopper_pdl_test.log")"
        grep -m 5 FAIL "$out/hopper_pdl_test.log" | cut -c1-400
        [ "$rc" -eq 0 ] || checked=no
    fi
    echo "== 2. base / P at 2048^3, 4096^3, 8192x8192x1024; P / base at 2048^3 again; E at 2048^3"
    all=2048,4096,8192x8192x1024
    bench base 24 $all
    bench P 24 $all
    bench P 12 2048
    bench base 12 2048
    bench E 12 2048
    echo "== what decides"
    d2=$(delta base P 2048^3) d4=$(delta base P 4096^3) d8=$(delta base P 8192x8192x1024)
    for d in "2048^3 $d2" "4096^3 $d4" "8192x8192x1024 $d8"; do
        echo "$d" | awk 'NF == 6 { printf("  %s: P %.2f%% (%d runs) against base %.2f%% (%d): %+.2f points\n", $1, $3, $4, $5, $6, $2) }
                         NF < 6 { printf("  %s: no figures\n", $1) }'
    done
    if [ "$checked" = no ]; then
        echo "decides: P (CUTEC_GEMM_PDL=1): hopper_pdl_test failed on the GPU (keep opt-in; look at the chains)"
    elif [ -z "$d2" ] || [ -z "$d4" ] || [ -z "$d8" ]; then
        echo "decides: P (CUTEC_GEMM_PDL=1): no figures (keep opt-in)"
    else
        echo "${d2%% *} ${d4%% *} ${d8%% *}" | awk '{ r = "keep opt-in (CUTEC_GEMM_PDL=1)"
            if ($1 >= 1.0 && $2 >= -0.3 && $3 >= -0.3) r = "make default: by_default \"1\" in src/kernels/gemm/hopper_plan.c (dependent_launch)"
            printf("decides: P (CUTEC_GEMM_PDL=1): %+.2f points at 2048^3, %+.2f at 4096^3, %+.2f at 8192x8192x1024: %s\n", $1, $2, $3, r) }'
    fi
    e=$(delta P E 2048^3)
    if [ -n "$e" ]; then
        echo "$e" | awk '{ printf("note: E (early) %.2f%% against P %.2f%% at 2048^3: %+.2f points (one run; decides nothing)\n", $2, $4, $1) }'
    else
        echo "note: E (early): no figures"
    fi
    device_end
} >"$log" 2>&1
cat "$log"
