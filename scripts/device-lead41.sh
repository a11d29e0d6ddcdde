#!/bin/sh
# The lead's marks of session 41 on main (about 110 s on one H200; log $OUT/lead41.log): what
# session 40 changed last and never timed on the GPU: the attention backward d128 with the
# dependent launches the default, beside SDPA (8x16x4096, 2x16x16384; each process prints both
# causalities, ~30-40 s with SDPA), and a jagged HSTU batch (AUTO: the Hopper kernel) beside
# torch's dense form on the batch padded to the longest (`cutec bench hstu --jagged`); then
# which instructions ptxas makes of an e4m3 mma.sync for sm_89 and sm_90a (issue 13's e4m3
# ceiling: native QMMA, or converted to f16 and run as HMMA?), from nvcc and cuobjdump there.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead41: skipped: no GPU here"; exit 0; }
log="$out/lead41.log"
start=$(date +%s) budget=${BUDGET_S:-100}
{
    device_head
    for s in "--batch 8 --heads 16 --seqlen 4096" "--batch 2 --heads 16 --seqlen 16384"; do
        echo "-- bwd d128 $s $(el_s)"
        # shellcheck disable=SC2086
        device_late "bwd $s" || timeout 50 build/cutec bench attention --bwd --headdim 128 $s --iters 10 2>&1 | tail -n 3
    done
    echo "-- jagged HSTU beside torch's padded dense form $(el_s)"
    device_late jagged || timeout 40 build/cutec bench hstu --jagged 4000,1,8192,0,3000 --heads 4 --headdim 128 --iters 10 2>&1 |
        grep -E "^bf16|^# torch|WRONG|rror"
    echo "-- mma.sync e4m3's SASS by target $(el_s)"
    d=$(mktemp -d)
    cat >"$d/k.cu" <<'CU'
__global__ void k(float *out, const unsigned *a, const unsigned *b)
{
    unsigned t = threadIdx.x;
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    for (int i = 0; i < 64; ++i)
        asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                     : "r"(a[t]), "r"(a[t + 32]), "r"(a[t + 64]), "r"(a[t + 96]), "r"(b[t]), "r"(b[t + 32]));
    out[t] = d0 + d1 + d2 + d3;
}
CU
    for a in sm_89 sm_90a; do
        echo "$a: $( (nvcc -arch=$a -cubin -o "$d/k.cubin" "$d/k.cu" && cuobjdump -sass "$d/k.cubin") 2>&1 |
            grep -oE "(HMMA|QMMA|IMMA|F2FP|F2F|HADD2|I2F)[.A-Z0-9_]*" | sort | uniq -c | tr '\n' ' ')"
    done
    rm -rf "$d"
    device_end
} 2>&1 | tee "$log"
