#!/bin/sh
# Engineer hstu2 (session 33): HSTU attention's Hopper kernel (src/kernels/attention/
# hstu_hopper.c: RAB, K and V by TMA, S = RAB + Q K^T and O += P V by wgmma, ping-pong
# consumers), AUTO's on sm_90 since session 32's H200 pass (this script's rule; the SM80
# kernel: CUTEC_HSTU_VARIANT=sm80, `--variant sm80`).  Now a re-check of that default beside
# the SM80 kernel and PyTorch's unfused form.
# At most 80 s on one H200 after the lead's `make all tests` (each step under its own
# timeout, started only while the run is inside BUDGET_S, default 78), most important first:
#   1. `cutec run hstu --variant hopper` on the GPU against float64 at three odd sizes (Sq !=
#      Sk, partial tiles, causal, f16, fast sigmoid, d64 and d128): 0 wrong, else fix first;
#   2. `cutec bench hstu` at 4x4x8192 d128 (the example's), then 16x4x4096 d64, causal and not
#      (one bench: both), the SM80 kernel with PyTorch's unfused form beside
#      (bench/torch_hstu.py), then the Hopper kernel's bench right after it on the same card
#      (two processes: --variant is the process's); each bench checks its
#      rows against float64 first ("WRONG" where not).
# The rule, one "decides: ..." line a head dim: the Hopper kernel stays AUTO's on sm_90 at
# head dim D if it checked right everywhere (step 1 and every bench row) and ran at least 5%
# faster than the SM80 kernel both causal and not at D's shape; else AUTO goes back to SM80.
# The flip is one line: src/kernels/attention/hstu.c, `auto_hopper[2] = {d64, d128}` (both 1
# since session 32's H200 pass: 485.8 against 172.6 TFLOP/s at d128, 282.3 against 154.3 at d64).
# Logs under $OUT (default build/device-out); the log's tail is printed.
. scripts/device-common.sh
log="$out/hstu2.log"
t0=$(date +%s)
budget=${BUDGET_S:-78}
iters=${ITERS:-5}

# the TFLOP/s of `cutec bench hstu`'s row (non-causal: 0, causal: 1) in file $1; "WRONG" rows
# and missing ones give 0
tflops()
{
    awk -v want="$2" '/^(bf16|f16) B=/ {
        for (i = 1; i <= NF; i++) if ($i ~ /^D=/) break;
        causal = ($(i + 1) == "causal") ? 1 : 0; j = i + 1 + causal;
        if ($(j) == "fast") j++;
        if (causal == want) { v = ($0 ~ /WRONG/) ? 0 : $(j + 1); found = 1 } }
        END { print found ? v + 0 : 0 }' "$1"
}

hstu2_pass()
{
    ok=1
    echo "== 1. the Hopper kernel on the GPU against float64 (0 wrong)"
    for args in "--batch 2 --heads 4 --seqlen 1000 --headdim 128 --causal" \
        "--batch 3 --heads 2 --seqlen 777 --seqlen-k 1025 --headdim 64 --dtype f16 --fast-sigmoid" \
        "--batch 1 --heads 3 --seqlen 1500 --seqlen-k 1531 --headdim 64 --causal --fast-sigmoid"; do
        # shellcheck disable=SC2086
        r=$(device_step 10 build/cutec run hstu --variant hopper $args)
        echo "$r"
        echo "$r" | grep -q "verified against float64 (0 wrong" || ok=0
    done
    echo "== 2. benches: SM80 (torch beside), then Hopper, at 4x4x8192 d128 and 16x4x4096 d64"
    faster64=1 faster128=1
    for shape in "--batch 4 --heads 4 --seqlen 8192 --headdim 128" "--batch 16 --heads 4 --seqlen 4096 --headdim 64"; do
        d=${shape##* }
        rm -f "$out/hstu2_sm80.txt" "$out/hstu2_hopper.txt"
        # shellcheck disable=SC2086
        device_step 22 build/cutec bench hstu --variant sm80 $shape --iters "$iters" | tee "$out/hstu2_sm80.txt"
        # shellcheck disable=SC2086
        device_step 16 env CUTEC_TORCH_HSTU=/dev/null build/cutec bench hstu --variant hopper $shape --iters "$iters" |
            tee "$out/hstu2_hopper.txt"
        for causal in 0 1; do
            old=$(tflops "$out/hstu2_sm80.txt" $causal) new=$(tflops "$out/hstu2_hopper.txt" $causal)
            [ "$new" = 0 ] && ok=0
            r=$(awk -v o="$old" -v n="$new" 'BEGIN { print (o > 0 && n >= 1.05 * o) ? 1 : 0 }')
            echo "pair (d$d, causal $causal): hopper $new TFLOP/s against sm80 $old: $([ "$r" = 1 ] && echo "at least 5% faster" || echo "not 5% faster")"
            [ "$r" = 1 ] || eval "faster$d=0"
        done
    done
    echo "== ptxas (sm_90a) of the Hopper kernel"
    for f in "--headdim 128" "--headdim 128 --causal" "--headdim 64" "--headdim 64 --causal --fast-sigmoid"; do
        [ $(($(date +%s) - t0 + 6)) -gt "$budget" ] && echo "$f: skipped (time)" && continue
        # shellcheck disable=SC2086
        echo "$f: $(timeout 6 build/cutec compile hstu --variant hopper $f --arch sm_90a --emit usage 2>&1 |
            grep -E "spill|Used" | tr -s ' ' | tr '\n' ' ')"
    done
    for d in 128 64; do
        eval "f=\$faster$d"
        if [ "$ok" = 0 ]; then
            echo "decides: d$d: fix first (the Hopper hstu, AUTO's, checked WRONG or did not run somewhere: see above)"
        elif [ "$f" = 1 ]; then
            echo "decides: d$d: the Hopper hstu stays AUTO's on sm_90 (5% faster both causal and not)"
        else
            echo "decides: d$d: AUTO back to SM80 (hstu.c auto_hopper's d$d = 0: the Hopper hstu not 5% faster both causal and not)"
        fi
    done
    device_stamp "done; clocks after: $(nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 |
        tr '\n' ' ')"
}

{
    device_stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    if nvidia-smi -L >/dev/null 2>&1; then
        nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
        hstu2_pass
    else
        echo "skipped: no GPU (nothing run, nothing timed)"
        echo "decides: nothing (no GPU): the Hopper hstu stays AUTO's on sm_90"
    fi
} >"$log" 2>&1
tail -n 60 "$log"
