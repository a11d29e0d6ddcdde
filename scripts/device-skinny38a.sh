#!/bin/sh
# The pass of branch skinny38a on a GPU machine (issue 17: the skinny GEMM through the tensor
# cores at M = 8 and 16, bf16 and f32, asks 85% of the copy; an H200 gave 69 / 79-82% bf16 and
# 68-70 / 68% f32 on main b773e9c0), about 80 s on one H200 after `make all tests`.
# The count (bench/RESULTS.md, skinny38a): at 8192^2 the form reads 128 MiB of bf16 A (256 MiB
# f32), 33 us (66 us) at the copy's ~4.06 TB/s, 30 GB/s an SM: at ~700 ns a round trip an SM
# needs ~21 KB in flight (Little), 30 KB at 1 us.  The register form's k-tile loop issues a
# warp's loads of A and X, waits for all of them, then runs its products: in flight comes and
# goes by k-tile.  The ring (mma.c, cfg.smem_stages) streams each warp's k-tiles of A and X by
# cp.async into shared stages of its own, stages - 1 ahead of its products.
# The mid pass (H200, 05:52, % of the copy, two turns): bf16 8 vectors: register form 69.45,
# the ring of 8 with X 71.55 in 2 splits and 90.50 in one; 16: 80.85 against 87.70 (one split);
# f32 8: 68.0 against 79.0 (8 stages, 2 splits); 16: 68.6 against 77.7 (4 stages, 3 splits) and
# 63.5 (8 stages: one block of 4 warps an SM); the ring without X lost everywhere (deleted).
# Now the default: 8 and 16 vectors through the ring of 8 (f32: 4 where two blocks of 8 do not
# fit), 16 bits in one split where the row blocks reach nine SMs in ten.
# This pass: mma_gpu_test (built here: `make all tests` leaves it out) against float64 first;
# then `cutec bench gemv` at 8192x8192, each process's forms twice, interleaved, beside a
# device copy of the same bytes: ring0 (the register form, the old default), lib (the
# default), ring4 and ring8 at 8 / 16 vectors, bf16 and f32; 32 / 64 vectors bf16 and 64 f32
# (the register form there) against rings of 3 / 4 / 8; f32 with `--tf32-bits 1` (3xTF32's
# halves by bits, opt-in); `cutec run gemm` at M = 8 / 16 through AUTO; last, for the next
# session, f32 at 16 vectors in one split with the bits.
# The rules (points of the copy, means of the two turns):
#  default:  the ring's default leads ring0 by >= 2 at 8 and 16 vectors -> "keep", else
#            "revert" (mma_ring_default in compile.c returns 0);
#  32 / 64:  a ring leading the register form by >= 2 at both -> "extend the default to 32
#            and 64 vectors" (mma_ring_default's `> 16`), else "keep the register form there";
#  bits:     leads cvt.rna by >= 2 at 64 vectors and >= -0.5 at 8 and 16 (the default) ->
#            "make default" (lib.c's configure), behind at all three -> "delete", else "keep
#            opt-in".
#   BUDGET=80 sh scripts/device-skinny38a.sh
. scripts/device-common.sh
log="$out/skinny38a.log"
start=$(date +%s)
budget=${BUDGET:-80}
GEMV_TIMEOUT=30
# rows_only FILE: the input printed, its form rows (a % of the copy, or failed) into FILE
rows_only()
{
    tee "$1.all"
    grep -E '%|failed' "$1.all" >"$1"
}
# sk NAME D N FORMS [ARGS]: FORMS twice at 8192x8192 with N vectors of D into $out/sk_NAME.rows
sk()
{
    name=$1 d=$2 n=$3 f=$4
    shift 4
    echo "-- $d $n vectors: $f $*"
    device_gemv --dtype "$d" --shape 8192x8192 --vectors "$n" --forms "$(echo $f $f | tr ' ' ',')" "$@" |
        rows_only "$out/sk_$name.rows"
}
# pct NAME FORMS FORM: the mean of FORM's two rows' % of the copy ("W" if one is WRONG, "" if
# missing)
pct()
{
    p_k=0 p_i=0
    for p_x in $2; do p_i=$((p_i + 1)); [ "$p_x" = "$3" ] && p_k=$p_i; done
    p_n=$(echo $2 | wc -w)
    p_a=$(sed -n "${p_k}p" "$out/sk_$1.rows" 2>/dev/null) p_b=$(sed -n "$((p_k + p_n))p" "$out/sk_$1.rows" 2>/dev/null)
    case "$p_a$p_b" in *WRONG*) echo W; return;; esac
    mean2 "$(copy_pct "$p_a")" "$(copy_pct "$p_b")"
}
# ge A T: A is a figure (not missing, not WRONG) at least T
ge() { awk -v a="$1" -v t="$2" 'BEGIN { exit !(a != "" && a !~ /W/ && a >= t) }'; }
# best_of NAME FORMS FORM...: the best of the FORMs' means, "" if none
best_of()
{
    b_n=$1 b_f=$2
    shift 2
    b_best=""
    for b_x in "$@"; do
        v=$(pct $b_n "$b_f" $b_x)
        ge "$v" "${b_best:--1}" && b_best=$v
    done
    echo "$b_best"
}
N8="ring0 lib ring4 ring8" F64="lib ring4" B64="lib ring3 ring4 ring8" BITS="ring0 lib"
{
    device_head
    echo "== build"
    make -j16 all tests build/tests/kernels/gemv/mma_gpu_test 2>&1 | grep -E "error|warning" | head -40
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing timed"
        for d in bf16 f32; do echo "decides: $d tensor-core ring at 8 and 16 vectors: keep (no GPU)"; done
        echo "decides: bf16 ring at 32 and 64 vectors: keep the register form there (no GPU)"
        echo "decides: f32 tf32 halves by bits: keep opt-in (no GPU)"
    else
        TEST_TIMEOUT=50 device_tests kernels/gemv/mma_gpu_test
        grep -q " 0 failed" "$out/mma_gpu_test.log" || checked=no
        echo "== at $(el) s: 8192x8192 with N vectors (GB/s of A + X + Y; copy: those bytes D2D)"
        sk b8 bf16 8 "$N8"
        sk b16 bf16 16 "$N8"
        sk f8 f32 8 "$N8"
        sk f16 f32 16 "$N8"
        sk f64 f32 64 "$F64"
        sk f8b f32 8 "$BITS" --tf32-bits 1
        sk f16b f32 16 "$BITS" --tf32-bits 1
        sk f64b f32 64 "$F64" --tf32-bits 1
        sk b32 bf16 32 "$B64"
        sk b64 bf16 64 "$B64"
        echo "== at $(el) s: cutec_gemm through AUTO (tn, N = K = 8192): the default form"
        for a in "bf16 8" "bf16 16" "f32 8" "f32 16"; do
            set -- $a
            device_late run gemm "$@" && continue
            echo "$1 M=$2: $(timeout 20 build/cutec run gemm --dtype $1 --out-dtype $1 --layout tn --m $2 --n 8192 --k 8192 --iters 20 2>&1 | tail -n 1)"
        done
        echo "== at $(el) s: for the next session: f32 in one split with the bits (4 warps an SM lost 14 points without)"
        sk f16b1 f32 16 "ring4 ring8" --tf32-bits 1 --splits 1
        echo "== at $(el) s: % of the copy, means of two turns"
        for a in "b8 $N8" "b16 $N8" "f8 $N8" "f16 $N8" "f64 $F64" "f8b $BITS" "f16b $BITS" "f64b $F64" "b32 $B64" \
            "b64 $B64" "f16b1 ring4 ring8"; do
            set -- $a
            n=$1
            shift
            line="$n:"
            for f in "$@"; do line="$line $f $(pct $n "$*" $f)"; done
            echo "$line"
        done
        for d in b f; do
            dt=$([ $d = b ] && echo bf16 || echo f32)
            l8=$(diff2 "$(pct ${d}8 "$N8" lib)" "$(pct ${d}8 "$N8" ring0)")
            l16=$(diff2 "$(pct ${d}16 "$N8" lib)" "$(pct ${d}16 "$N8" ring0)")
            if [ "${checked:-yes}" = no ]; then
                echo "decides: $dt tensor-core ring at 8 and 16 vectors: revert (wrong): mma_gpu_test failed above"
            elif ge "$l8" 2 && ge "$l16" 2; then
                echo "decides: $dt tensor-core ring at 8 and 16 vectors: keep ($l8 points over the register form at 8, $l16 at 16)"
            elif [ -z "$l8$l16" ]; then
                echo "decides: $dt tensor-core ring at 8 and 16 vectors: keep (not timed)"
            else
                echo "decides: $dt tensor-core ring at 8 and 16 vectors: revert ($l8 at 8, $l16 at 16): mma_ring_default (compile.c) returns 0"
            fi
        done
        l32=$(diff2 "$(best_of b32 "$B64" ring3 ring4 ring8)" "$(pct b32 "$B64" lib)")
        l64=$(diff2 "$(best_of b64 "$B64" ring3 ring4 ring8)" "$(pct b64 "$B64" lib)")
        if [ "${checked:-yes}" != no ] && ge "$l32" 2 && ge "$l64" 2; then
            echo "decides: bf16 ring at 32 and 64 vectors: extend the default ($l32 points at 32, $l64 at 64; the best depth in the table above):" \
                "mma_ring_default's \`> 16\`"
        else
            echo "decides: bf16 ring at 32 and 64 vectors: keep the register form there (the best ring $l32 at 32, $l64 at 64)"
        fi
        d64=$(diff2 "$(pct f64b "$F64" lib)" "$(pct f64 "$F64" lib)")
        d8=$(diff2 "$(pct f8b "$BITS" lib)" "$(pct f8 "$N8" lib)") d16=$(diff2 "$(pct f16b "$BITS" lib)" "$(pct f16 "$N8" lib)")
        if [ "${checked:-yes}" = no ]; then
            echo "decides: f32 tf32 halves by bits: keep opt-in (wrong): mma_gpu_test failed above"
        elif ge "$d64" 2 && ge "$d8" -0.5 && ge "$d16" -0.5; then
            echo "decides: f32 tf32 halves by bits: make default ($d64 points at 64 vectors, $d8 at 8, $d16 at 16): lib.c's configure"
        elif ! ge "$d64" -0.5 && ! ge "$d8" -0.5 && ! ge "$d16" -0.5 && [ -n "$d64$d8$d16" ]; then
            echo "decides: f32 tf32 halves by bits: delete ($d64 points at 64 vectors, $d8 at 8, $d16 at 16)"
        else
            echo "decides: f32 tf32 halves by bits: keep opt-in ($d64 points at 64 vectors, $d8 at 8, $d16 at 16)"
        fi
    fi
    device_gemv_usage "bf16 --vectors 8 --splits 1" "bf16 --vectors 16 --splits 1" "f32 --vectors 8 --splits 2" \
        "f32 --vectors 16 --splits 3" "f32 --vectors 16 --splits 3 --tf32-bits 1" "f32 --vectors 64 --splits 2 --tf32-bits 1"
    device_end
    echo "== WRONG lines: $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 120
