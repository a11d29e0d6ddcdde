#!/bin/sh
# The lead's pass at the start of session 28: what the last passes never measured, one part a
# lane (PART=rows|attn|gemm|gemv; device-lanes.sh passes it from "start28=PART:seconds").
#   rows: softmax fwd/bwd, log-softmax, LayerNorm fwd, cross-entropy fwd+bwd (also 8192x131072),
#         bf16 at issue 16's three shapes, the copy and torch in the same run
#   attn: decode (MHA and GQA), d256 at 16k, the SM80 forward d128, the backward at 16k
#   gemm: the Hopper bf16 GEMM on issue 15's LLM shapes (schedules x clusters), the fused
#         epilogues' cost at 8192^3, f16 at 8192^3
#   gemv: bf16 GEMV and NVFP4 (seed 001's shapes), MXFP8, the skinny M = 32..128 sweep
# Every benchmark line-buffered (stdbuf), under its own timeout; logs in $OUT.
. scripts/device-common.sh
part=${PART:-rows}
log="$out/start28-$part.log"
t0=$(date +%s)
say() { echo "== +$(($(date +%s) - t0)) s: $*"; }
b() # seconds, cutec args...
{
    t=$1 && shift
    say "cutec $*"
    timeout "$t" stdbuf -oL -eL build/cutec "$@" 2>&1
}
rows()
{
    for op in softmax "softmax --backward" log-softmax layernorm "cross-entropy --backward"; do
        # shellcheck disable=SC2086
        b 40 bench $op --dtype bf16 --iters 10
    done
    b 40 bench cross-entropy --backward --dtype bf16 --shape 8192x131072 --iters 10
    b 30 bench rmsnorm --dtype bf16 --shape 1024x262144 --iters 10
}
attn()
{
    b 60 bench attention --decode --iters 20
    b 40 bench attention --batch 1 --heads 16 --seqlen 16384 --headdim 256 --iters 5
    b 40 bench attention --variant sm80 --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 5
    b 40 bench attention --bwd --batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 5
}
gemm()
{
    b 90 bench gemm --dtype bf16 --layout tn --variants hopper --sizes 8192x28672x4096,8192x4096x14336,8192x6144x4096 \
        --schedule coop,pingpong --cluster 1x1,2x1 --iters 10
    for e in bias relu gelu silu; do
        b 25 bench gemm --dtype bf16 --layout tn --variants hopper --sizes 8192 --epilogue $e --iters 10
    done
    b 25 bench gemm --dtype f16 --layout tn --variants hopper --sizes 8192,4096 --iters 10
}
gemv()
{
    for d in bf16 nvfp4 mxfp8; do b 40 bench gemv --dtype $d --iters 20; done
    for n in 32 64 128; do b 20 bench gemv --dtype bf16 --shape 8192x8192 --vectors $n --iters 20; done
    say "torch.mv / torch.mm"
    timeout 60 stdbuf -oL python3 bench/torch_gemv.py 2>&1
}
{
    say "$(date -u '+%F %T') $(git log --oneline -1 2>/dev/null) part $part"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    $part
    say "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
cat "$log"
