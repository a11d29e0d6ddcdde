#!/bin/sh
# The PTX path (CUTEC_CODEGEN=ptx: IR straight to PTX, the toolkit's ptxas binary, its three
# forms on) against the CUDA C path (NVRTC) on the kernels session 33's ptx3 pass did not time:
# the GEMVs (bf16, NVFP4), the Hopper attention forward and backward, softmax, LayerNorm, the
# norms' backward at 262144, fp8 block scales.  First each under the PTX path against float64
# (`cutec run`), then each bench twice a path in the order cuda, ptx, ptx, cuda, the reference
# rows off.  Decides: the PTX path could be the default (docs/ptx_backend.md) if every kernel
# here runs within 2% of CUDA C (the mean of its two runs a path); otherwise it names the
# kernels behind.  About 200 s on an H200; log $OUT/ptxall.log.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-ptxall: skipped: no GPU here"; exit 0; }
log="$out/ptxall.log"
start=$(date +%s)
export CUTEC_TORCH_ROWS=/dev/null CUTEC_TORCH_ATTENTION=/nonexistent/none.py CUTEC_TORCH_SCALED_MM=/nonexistent/none.py
# NAME COLUMN ARGS...: one bench under each path, cuda ptx ptx cuda; prints "NAME path value" rows
both()
{
    name=$1 col=$2 && shift 2
    for path in cuda ptx ptx cuda; do
        v=$(CUTEC_CODEGEN=$path timeout 60 build/cutec bench "$@" 2>&1 | awk -v c="$col" '/^(bf16|f16|rows|nvfp4|4096|softmax|layernorm|rmsnorm) / && !/cublas/ {print (c == "NF" ? $NF : $c); exit}')
        echo "$name $path ${v:-none}"
    done
}
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw --format=csv 2>&1
    echo "== checked under the PTX path $(el_s)"
    for a in "gemv --dtype nvfp4 --shape 4100x8256 --batch 3" "gemv --dtype bf16 --shape 16385x4096 --batch 2" \
             "attention --seqlen 1100 --heads 6 --kv-heads 3 --batch 2" "attention --bwd --seqlen 1000 --causal --batch 2 --heads 4" \
             "layernorm --dtype bf16 --shape 37x262136 --backward" "softmax --dtype bf16 --shape 1000x4100" \
             "gemm --dtype e4m3 --out-dtype bf16 --variant hopper --layout tnt --scale block --m 1021 --n 1016 --k 1024"; do
        echo "$a: $(CUTEC_CODEGEN=ptx timeout 60 build/cutec run $a --iters 3 2>&1 | grep -E "verified|WRONG|wrong|rror|refus" | tail -n 1)"
    done
    echo "== speed: cuda ptx ptx cuda $(el_s)"
    {
        both gemv-bf16 NF gemv --dtype bf16 --shape 8192x8192 --iters 20
        both gemv-nvfp4 NF gemv --dtype nvfp4 --shape 7168x16384 --iters 20
        both attn-fwd 8 attention --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10
        both attn-bwd 9 attention --bwd --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 5
        both softmax 8 softmax --dtype bf16 --shape 16384x4096 --iters 20
        both layernorm 8 layernorm --dtype bf16 --shape 4096x32768 --iters 20
        both rmsnorm-bwd 8 rmsnorm --backward --dtype bf16 --shape 1024x262144 --iters 10
        both fp8-block 4 gemm --dtype e4m3 --layout tn --variants hopper --scale block --sizes 4096x7168x16384 --iters 10
    } | tee "$out/ptxall.rows"
    echo "== what decides $(el_s)"
    awk '{v=$3; gsub("%","",v); if (v=="none") bad[$1]=1; else { s[$1" "$2]+=v; n[$1" "$2]++ } ; names[$1]=1}
         END { behind=""; for (k in names) { if (bad[k]) { behind=behind" "k"(no figure)"; continue }
                 c=s[k" cuda"]/n[k" cuda"]; p=s[k" ptx"]/n[k" ptx"]; r=p/c;
                 printf "%s: ptx/cuda %.3f (%.2f against %.2f)\n", k, r, p, c; if (r < 0.98) behind=behind" "k }
               if (behind=="") print "decides: the PTX path within 2% on every kernel here: it may be the default where the ptxas binary is found"
               else print "decides: the PTX path stays opt-in; behind by more than 2%:" behind }' "$out/ptxall.rows"
    echo "== done $(el_s)"
} >"$log" 2>&1
cat "$log"
