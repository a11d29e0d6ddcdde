#!/bin/sh
# The lead's profile pass at the start of session 29: Nsight Compute (ncu, hardware counters,
# the clocks left alone) on the kernels furthest from their issue's figure, one part a lane
# (PART=gemm|gemv|attn|rows; device-lanes.sh passes it from "prof29=PART:seconds").
#   gemm: fp8 block-scaled and per-tensor 128x128 at 4096x7168x16384, bf16 Hopper 4096^3
#   gemv: NVFP4 GEMV (7168,16384,1), the skinny bf16 GEMM at 64 vectors
#   attn: the Hopper attention backward d128 8x16x4096 (its three kernels), the forward
#   rows: softmax and LayerNorm at 1024x262144, cross-entropy at 16384x4096, the SM80 attention
#   more: decode with 8 KV heads, the forward at d64;  more2: LayerNorm 16384x4096, bf16 8192^3
#   after: the attention backward, NVFP4 (4096,7168,8) and softmax 262144 as this session left them
#   s33: d64 causal forward, NVFP4 (7168,16384,1), LayerNorm backward 262144, fp8 block scales
# Each profile: the speed of light, warp states, scheduler, memory and compute sections and the
# sampled stalls a SASS instruction ($OUT/NAME.txt and NAME-sass.csv).  Only cutec's kernels
# (NAME_kernel_N) are profiled; the launch profiled is the third of its name.
. scripts/device-common.sh
part=${PART:-gemm}
command -v ncu >/dev/null || PATH=$PATH:$(ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null | tail -n 1)
log="$out/prof29-$part.log"
t0=$(date +%s)
say() { echo "== +$(($(date +%s) - t0)) s: $*"; }
prof() # name seconds launches cutec-args...
{
    name=$1 t=$2 n=$3 && shift 3
    say "$name: cutec $*"
    timeout "$t" ncu --clock-control none --kernel-name-base function --kernel-name 'regex:_kernel_[0-9]+$' \
        --launch-skip 2 --launch-count "$n" --section SpeedOfLight --section WarpStateStats \
        --section SchedulerStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
        --section Occupancy --section LaunchStats --section SourceCounters -f -o "$out/$name" \
        build/cutec "$@" >"$out/$name.txt" 2>&1
    echo "rc $?"
    timeout 60 ncu --import "$out/$name.ncu-rep" --print-summary none >>"$out/$name.txt" 2>&1
    timeout 60 ncu --import "$out/$name.ncu-rep" --page source --csv --print-source sass >"$out/$name-sass.csv" 2>&1
    grep -E "^  [a-z_0-9]+_kernel_|Duration|Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy|No Eligible|Warp Cycles Per Issued" "$out/$name.txt" | head -40
    rm -f "$out/$name.ncu-rep"
}
gemm()
{
    prof fp8-block 60 1 bench gemm --dtype e4m3 --layout tn --variants hopper --scale block --sizes 4096x7168x16384 --iters 3
    prof fp8-tensor128 50 1 bench gemm --dtype e4m3 --layout tn --variants hopper --scale tensor --sizes 4096x7168x16384 --tile 128x128x128 --iters 3
    prof bf16-4096 50 1 bench gemm --dtype bf16 --layout tn --variants hopper --sizes 4096 --iters 3
}
gemv()
{
    prof nvfp4 60 1 bench gemv --dtype nvfp4 --shape 7168x16384 --iters 3
    prof skinny64 60 1 bench gemv --dtype bf16 --shape 8192x8192 --vectors 64 --iters 3
}
attn()
{
    prof attn-bwd 90 3 bench attention --bwd --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 3
    prof attn-fwd 60 1 bench attention --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 3
}
rows()
{
    export CUTEC_TORCH_ROWS=/dev/null # no torch rows: only the profiled kernel's own runs
    prof softmax-262144 40 1 bench softmax --dtype bf16 --shape 1024x262144 --iters 3
    prof layernorm-262144 40 1 bench layernorm --dtype bf16 --shape 1024x262144 --iters 3
    prof ce-4096 40 1 bench cross-entropy --backward --dtype bf16 --shape 16384x4096 --iters 3
    unset CUTEC_TORCH_ROWS
    prof attn-sm80 60 1 bench attention --variant sm80 --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 3
}
more() # the second call on the warm host: what the first left out
{
    prof decode-gqa 60 1 bench attention --decode --kv-heads 8 --iters 3
    prof attn-d64 60 1 bench attention --batch 16 --heads 32 --seqlen 2048 --headdim 64 --iters 3
}
more2()
{
    CUTEC_TORCH_ROWS=/dev/null prof layernorm-4096 40 1 bench layernorm --dtype bf16 --shape 16384x4096 --iters 3
    prof bf16-8192 50 1 bench gemm --dtype bf16 --layout tn --variants hopper --sizes 8192 --iters 3
}
after() # the final pass: the kernels this session changed
{
    prof attn-bwd-after 70 3 bench attention --bwd --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 3
    prof nvfp4-after 40 1 bench gemv --dtype nvfp4 --shape 4096x7168 --batch 8 --iters 3
    CUTEC_TORCH_ROWS=/dev/null prof softmax-262144-after 40 1 bench softmax --dtype bf16 --shape 1024x262144 --iters 3
}
s33() # session 33's final pass: the widest gaps it left (d64 causal behind SDPA, NVFP4 at L = 1,
{      # LayerNorm's backward at 262144, fp8 block scales with the FFMA rewrite)
    prof attn-d64-causal 60 1 run attention --causal --batch 16 --heads 32 --seqlen 2048 --headdim 64 --iters 3
    prof nvfp4-l1 40 1 bench gemv --dtype nvfp4 --shape 7168x16384 --iters 3
    CUTEC_TORCH_ROWS=/dev/null prof layernorm-bwd-262144 40 1 bench layernorm --backward --dtype bf16 --shape 1024x262144 --iters 3
    prof fp8-block-reuse 60 1 bench gemm --dtype e4m3 --layout tn --variants hopper --scale block --sizes 4096x7168x16384 --iters 3
}
{
    say "$(date -u '+%F %T') $(git log --oneline -1 2>/dev/null) part $part"
    ncu --version 2>&1 | tail -n 1
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    $part
    say "done"
} >"$log" 2>&1
cat "$log"
