#!/bin/sh
# Issue 13: the SM80 (mma.sync) GEMMs at 4096^3 against 80% of `cutec bench mma`'s ceiling of
# the same dtype (engineer sm80_39, session 39).  Where they stood (H200): s8 74.3-75.1%, f16
# 76.2% (79.0% in session 28), bf16 77.7% (8192^3: s8 82.5%, bf16 80.3%, the same kernels).
# The count (bench/RESULTS.md, sm80_39): every SM80 tiling holds 256 x 128 of C an SM (8 warps
# of 64 x 64 accumulators), so 4096^2 is 3.88 rounds whatever the tile; the K sweeps put a
# round's fixed cost near 4.5 us for s8 and bf16 alike (6.8% of a bf16 round at K 4096, 3.4% at
# 8192), the partial last round ~3% (bf16/f16: 116 of 132 SMs busy in the fourth).  Forms:
#   halves  s8, bf16: CUTEC_GEMM_SM80_HALVES=1, a block a tile whose first tiles (half the block
#           slots: s8's 132, one an SM; bf16's 66, one block an SM) run in two halves of K, the
#           first halves first and the second ones last, so the two blocks of an SM (bf16: half
#           the SMs against the other half) run half a tile apart: each round's epilogues (s8:
#           C's 16.9 MB of s32) and prologues half the card at a time beside the other half's
#           main loops; opt-in, new (ptxas: s8 255 registers, 20 bytes spilled; bf16 241, none);
#   hybrid  f16 / bf16: `--schedule streamk` with CUTEC_GEMM_SM80_STREAMK=hybrid: whole tiles for
#           all but the last full wave, the last 1.88 waves' k-tiles in equal runs over the 132
#           blocks (a block's 120 k-tiles instead of two tiles' 128); opt-in, new;
#   tnt     C row-major instead of column-major, steps 5 and 4 (`--variants tensorop_smem,
#           tensorop`): at M = N it is what computing a column-major C as C^T would give (the
#           accumulators' pairs along C's unit stride: 64-bit shared stores in step 5, a quad's
#           32-byte sectors straight from the registers in step 4); nothing built for it yet.
# The SM clock (NVML through nvidia-smi, every 100 ms) is sampled beside every bench: the
# ceiling runs near 1,980 MHz and the GEMMs under load did not (prof38: s8 at 1,667).
# Under 60 s on one H200 after the lead's `make all tests` (BUDGET_S, default 52: a step past it
# prints "skipped").  Logs under $OUT.
#   1. on the GPU against float64 FIRST (`cutec run gemm`, every element, the six at once): f16,
#      bf16, s8 tn at 515x389x263 (the library's tiling), s8 halves at 1100x2000x300 (144 tiles,
#      132 split: halves of 1 and 2 k-tiles), bf16 and s8 hybrid at tiles of 32 x 32 where whole
#      tiles and runs both occur (800x800, K 480 / 960: 625 tiles on 264 blocks, 97 left over);
#   2. `cutec bench mma --dtypes f16,bf16,s8`: this run's ceilings;
#   3. two rounds at 4096^3, cuBLAS beside in each process: s8 tn, halves; bf16 tn, hybrid,
#      halves; s8 tnt; f16 tn (its mark) (past the budget the rest is skipped, visibly).
# "decides:" (points of this run's ceiling, each round):
#   halves  for s8 and bf16 apart: 1 point ahead of tn in both rounds -> that dtype's default
#           (tile_sched.c gemm_sm80_halves: s8_by_default / bf16_by_default 0 -> 1, bf16's for f16
#           too; 8192^3 is the final pass's); 0.3 behind in both for both dtypes -> deleted;
#           else opt-in;
#   hybrid  1 point ahead of tn in both bf16 rounds -> lib.c's by_size takes it for 16-bit inputs
#           up to 4096^2 (plan_multistage.c streamk_division `by_default` 1; f16 is the same
#           kernel, the final pass times it); 0.3 behind in both -> deleted; else opt-in;
#   tnt     (s8) its better step 1 point ahead of tn in both rounds -> build the swap (lib.c: a
#           column-major C as C^T); else none.
. scripts/device-common.sh
log="$out/sm80_39.log"
start=$(date +%s)
budget=${BUDGET_S:-52}
iters=${ITERS:-10}

# clk_on / clk_off: NVML's SM clock and board power every 100 ms into $out/clk.csv
clk_on()
{
    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader,nounits -lms 100 >"$out/clk.csv" 2>/dev/null &
    clk_pid=$!
}
clk_off() { [ -n "${clk_pid:-}" ] && kill "$clk_pid" 2>/dev/null; clk_pid=; }

# now: the local time of day in seconds (nvidia-smi's timestamps are local)
now() { date +%H:%M:%S.%N | awk -F: '{ printf("%.2f", $1 * 3600 + $2 * 60 + $3) }'; }

# clk_in T0 T1: the samples between T0 and T1 drawing over 60% of the window's largest power:
# "N samples: SM median M MHz (min-max), power P W"
clk_in()
{
    awk -F', *' -v t0="$1" -v t1="$2" '
        { split($1, d, " "); split(d[2], h, ":"); t = h[1] * 3600 + h[2] * 60 + h[3]
          if (t >= t0 && t <= t1 && $2 ~ /^[0-9]+$/) { n++; c[n] = $2; p[n] = $3; if ($3 > pm) pm = $3 } }
        END { k = 0; for (i = 1; i <= n; i++) if (p[i] >= 0.6 * pm) { k++; s[k] = c[i] }
              if (k == 0) { print "no clock samples"; exit }
              for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (s[j] < s[i]) { x = s[i]; s[i] = s[j]; s[j] = x }
              printf("%d samples: SM median %d MHz (%d-%d), power up to %.0f W\n", k, s[int((k + 1) / 2)], s[1], s[k], pm) }' "$out/clk.csv"
}

# bench NAME DTYPE LAYOUT ENV... -- ARGS: one process of `cutec bench gemm --sizes 4096` into
# $out/NAME.txt, its rows, the bench's clock line and the sampled clock
bench()
{
    name=$1 dtype=$2 layout=$3
    shift 3
    device_late "$name" && return
    t0=$(now)
    (
        # shellcheck disable=SC2163
        while [ "$1" != "--" ]; do export "$1"; shift; done
        shift
        timeout 20 build/cutec bench gemm --dtype "$dtype" --layout "$layout" --sizes 4096 --iters "$iters" "$@"
    ) >"$out/$name.txt" 2>&1
    t1=$(now)
    echo "-- $name ($(el) s): $(clk_in "$t0" "$t1")"
    grep -E "^ *[0-9]|rror|refus|SM clock" "$out/$name.txt"
}

# points NAME VARIANT DTYPE: the row's rate in points of the dtype's ceiling ("" if none)
points()
{
    c=$(awk -v d="$3" '$1 == d { print $3; exit }' "$out/mma.txt" 2>/dev/null)
    awk -v v="$2" -v c="$c" '$2 == v && $4 ~ /^[0-9.]+$/ && c > 0 { printf("%.2f", 100 * $4 / c); exit }' "$out/$1.txt" 2>/dev/null
}

# count A B: 1 when both given and B - A >= 1 (ahead), 2 when A - B >= 0.3 (behind), else 0
cmp_pts() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "") print 9; else if (b - a >= 1) print 1; else if (a - b >= 0.3) print 2; else print 0 }'; }

# verdict FORM SETTING N NONE AHEAD BEHIND WHAT: the form's "decides:" line from its comparisons
# (N of them): WHAT where all N ahead, deleted where all N behind, else opt-in
verdict()
{
    if [ "$4" -gt 0 ]; then
        echo "decides: $1 stays opt-in ($2): comparisons without figures"
    elif [ "$5" -eq "$3" ]; then
        echo "decides: $1 $7"
    elif [ "$6" -eq "$3" ]; then
        echo "decides: $1 deleted (0.3 behind tn in every comparison)"
    else
        echo "decides: $1 stays opt-in ($2)"
    fi
}

decide()
{
    echo "== decisions (points of this run's mma.sync ceiling, 4096^3)"
    ahead_h=0 behind_h=0 none_h=0
    for d in s8 bf16; do
        for r in 1 2; do
            tn=$(points "$d-tn-$r" tensorop_smem "$d")
            hy=$(points "$d-hybrid-$r" tensorop_smem "$d")
            t5=$(points "$d-tnt-$r" tensorop_smem "$d") t4=$(points "$d-tnt-$r" tensorop "$d")
            [ "$d" = s8 ] && echo "$d round $r: tn ${tn:-none}, tnt step 5 ${t5:-none}, tnt step 4 ${t4:-none}"
            [ "$d" = s8 ] || echo "$d round $r: tn ${tn:-none}, hybrid ${hy:-none}"
            best=$(awk -v a="$t5" -v b="$t4" 'BEGIN { if (a == "" || (b != "" && b > a)) print b; else print a }')
            eval "tnt_$d$r=\$(cmp_pts \"\$tn\" \"\$best\")"
            [ "$d" = s8 ] && continue
            v=$(cmp_pts "$tn" "$hy")
            case $v in 1) ahead_h=$((ahead_h + 1)) ;; 2) behind_h=$((behind_h + 1)) ;; 9) none_h=$((none_h + 1)) ;; esac
        done
        eval "a1=\$tnt_${d}1 a2=\$tnt_${d}2"
        if [ "$d" != s8 ]; then
            :
        elif [ "$a1" = 1 ] && [ "$a2" = 1 ]; then
            echo "decides: $d: C row-major 1 point ahead in both rounds: build the swap (lib.c, a column-major C as C^T) for $d"
        elif [ "$a1" = 9 ] || [ "$a2" = 9 ]; then
            echo "decides: $d: the swap undecided (a round without figures)"
        else
            echo "decides: $d: no swap (C row-major not 1 point ahead in both rounds)"
        fi
    done
    for d in s8 bf16; do
        ahead=0 behind=0 none=0
        for r in 1 2; do
            tn=$(points "$d-tn-$r" tensorop_smem $d) hv=$(points "$d-halves-$r" tensorop_smem $d)
            echo "$d round $r: tn ${tn:-none}, halves ${hv:-none}"
            case $(cmp_pts "$tn" "$hv") in 1) ahead=$((ahead + 1)) ;; 2) behind=$((behind + 1)) ;; 9) none=$((none + 1)) ;; esac
        done
        verdict "halves ($d)" CUTEC_GEMM_SM80_HALVES=1 2 "$none" "$ahead" "$behind" \
            "$d's default (tile_sched.c gemm_sm80_halves: ${d}_by_default 1)"
    done
    for r in 1 2; do echo "f16 round $r: tn $(points "f16-tn-$r" tensorop_smem f16)"; done
    verdict hybrid CUTEC_GEMM_SM80_STREAMK=hybrid 2 "$none_h" "$ahead_h" "$behind_h" \
        "the 16-bit inputs' schedule up to 4096^2 (lib.c by_size rows; streamk_division by_default 1)"
}

{
    device_head
    if ! nvidia-smi -L >/dev/null 2>&1; then
        echo "== no GPU here: every GPU step skipped"
        exit 0
    fi
    echo "== 1. on the GPU against float64 first (every element; the six at once, each its own process)"
    for d in f16 bf16 s8; do
        sm80_check "$d tn" 15 build/cutec run gemm --backend cuda --variant tensorop_smem --dtype $d --layout tn \
            --m 515 --n 389 --k 263 --alpha 2 --beta -1 >"$out/check-$d.txt" &
    done
    CUTEC_GEMM_SM80_HALVES=1 sm80_check "s8 halves" 15 build/cutec run gemm --backend cuda --variant tensorop_smem \
        --dtype s8 --layout tn --m 1100 --n 2000 --k 300 --alpha 3 --beta -2 >"$out/check-halves.txt" &
    for d in bf16:480:32 s8:960:64; do
        dt=${d%%:*} k=${d#*:} bk=${d##*:}
        CUTEC_GEMM_SM80_STREAMK=hybrid sm80_check "$dt hybrid" 15 build/cutec run gemm --backend cuda \
            --variant tensorop_smem --dtype "$dt" --layout tn --m 800 --n 800 --k "${k%:*}" --alpha 2 --beta -1 \
            --schedule streamk --tile "32x32x$bk" --warps 2x2 >"$out/check-hybrid-$dt.txt" &
    done
    wait
    cat "$out"/check-*.txt
    echo "== 2. bench mma ($(el) s): this run's ceilings"
    device_late mma || timeout 15 build/cutec bench mma --dtypes f16,bf16,s8 --iters 3 >"$out/mma.txt" 2>&1
    grep -E "^(f16|bf16|s8) |SM clock" "$out/mma.txt"
    echo "== 3. two rounds at 4096^3 ($(el) s)"
    clk_on
    for r in 1 2; do
        bench "s8-tn-$r" s8 tn -- --variants tensorop_smem
        bench "s8-halves-$r" s8 tn CUTEC_GEMM_SM80_HALVES=1 -- --variants tensorop_smem
        bench "bf16-tn-$r" bf16 tn -- --variants tensorop_smem
        bench "bf16-hybrid-$r" bf16 tn CUTEC_GEMM_SM80_STREAMK=hybrid -- --variants tensorop_smem --schedule streamk
        bench "bf16-halves-$r" bf16 tn CUTEC_GEMM_SM80_HALVES=1 -- --variants tensorop_smem
        bench "s8-tnt-$r" s8 tnt -- --variants tensorop_smem,tensorop
        bench "f16-tn-$r" f16 tn -- --variants tensorop_smem
    done
    clk_off
    decide
    device_end
} 2>&1 | stdbuf -oL -eL tee "$log"
