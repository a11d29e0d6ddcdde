#!/bin/sh
# The cold-compile pass of the step-5 GEMM's epilogue and the fp8 rows _VIA_F16 (issue 13,
# docs/compile_time.md, docs/instructions.md) on a GPU machine: build this tree and, beside
# it, the tree before the change ($BASE); the phases of the bf16, e4m3 and f32 library GEMMs'
# cold compiles on this machine's CPU, best of five, both trees interleaved in one loop; the
# GPU tests (every instruction row against the interpreter bit for bit, the new fp8 rows
# included; every atom lane by lane; the tensor-core GEMMs); odd-sized GEMMs with beta != 0
# of every dtype against float64 (the epilogue's reads of C); bf16 and e4m3 GEMMs against
# cuBLAS from both trees in the same call (bf16: speed unchanged; e4m3: no FADDs, faster).
# Results and logs (tarred) go to $OUT (default build/device-out).  Under 4 minutes on an H200.
#   BASE=c816cec sh scripts/device-coldc2.sh   (main before this branch merged)
. scripts/device-common.sh
base=${BASE:-c816cec}
log="$out/coldc2.log"
basedir="${TMPDIR:-/tmp}/coldc2-base"

# the CPU milliseconds of phase $2 in `--emit time` output $1, best of the runs
best_of()
{
    grep -F "$2" "$1" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/) { v = $i + 0; break }
                              if (min == "" || v < min) min = v } END { print min }'
}

cold_compile() # dtype, extra arguments: both trees, five rounds interleaved
{
    : > "$out/time-new-$1.txt"; : > "$out/time-base-$1.txt"
    for i in 1 2 3 4 5; do
        # shellcheck disable=SC2086
        CUTEC_NO_CACHE=1 build/cutec compile gemm --dtype $* --arch sm_90a --emit time >> "$out/time-new-$1.txt" 2>&1
        # shellcheck disable=SC2086
        CUTEC_NO_CACHE=1 "$basedir/build/cutec" compile gemm --dtype $* --arch sm_90a --emit time >> "$out/time-base-$1.txt" 2>&1
    done
    for side in base new; do
        f="$out/time-$side-$1.txt"
        echo "$1 $side: to PTX $(best_of "$f" "NVRTC to PTX") ms, to cubin $(best_of "$f" "NVRTC to cubin") ms CPU (best of 5); $(grep -m1 -o '[0-9]* lines, [0-9]* bytes of CUDA C' "$f")"
    done
}

{
    device_begin
    echo "CPU: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
    echo "== build the tree before the change ($base)"
    rm -rf "$basedir" && mkdir -p "$basedir" && git archive "$base" | tar -x -C "$basedir"
    (cd "$basedir" && make -j16 build/cutec 2>&1 | grep -E "error|warning" | head -20)
    echo "== cold compile, CPU ms, best of 5, base and new interleaved (sm_90a, NVRTC)"
    cold_compile bf16 --variant tensorop_smem
    cold_compile e4m3 --variant tensorop_smem --layout tn --out-dtype bf16
    cold_compile f32
    echo "== one --emit time of each, this tree"
    for d in "bf16 --variant tensorop_smem" "e4m3 --variant tensorop_smem" f32; do CUTEC_NO_CACHE=1 build/cutec compile gemm --dtype $d --arch sm_90a --emit time 2>&1; done
    echo "== registers and spills (ptxas through NVRTC), base then new"
    for d in "bf16" "bf16 --layout tn" "f16 --layout tn" "tf32 --layout tn" "s8 --layout tn" "f64 --layout tn" "e4m3 --layout tn" "e5m2 --layout tn"; do
        for b in "$basedir/build/cutec" build/cutec; do
            # shellcheck disable=SC2086
            echo "$d: $($b compile gemm --variant tensorop_smem --dtype $d --arch sm_90a --emit usage 2>&1 | grep -E 'Used|spill stores' | tr -s ' ' | tr '\n' ' ')"
        done
    done
    echo "== bench mma: the f16 ceiling, fp8 as ptxas lowers it and as the _VIA_F16 row runs it"
    build/cutec bench mma --dtypes f16,e4m3 --iters 5 2>&1
    echo "== run gemm, beta != 0, odd sizes, batched (every element against float64)"
    for d in "bf16" "f16 --out-dtype f32" "tf32" "s8" "f64" "e4m3 --out-dtype bf16"; do
        # shellcheck disable=SC2086
        build/cutec run gemm --dtype $d --m 1021 --n 509 --k 263 --batch 2 --beta 0.5 --layout tnt 2>&1 | tail -n 2
    done
    echo "== bench gemm bf16 tn, base then new, same call (against cuBLAS in each process)"
    for b in "$basedir/build/cutec" build/cutec; do
        echo "-- $b"
        "$b" bench gemm --dtype bf16 --layout tn --sizes "$sizes" --iters "$iters" --variants tensorop_smem 2>&1
    done
    echo "== bench gemm e4m3 -> bf16 tn, base then new, same call"
    for b in "$basedir/build/cutec" build/cutec; do
        echo "-- $b"
        "$b" bench gemm --dtype e4m3 --out-dtype bf16 --layout tn --sizes "$sizes" --iters "$iters" --variants tensorop_smem 2>&1
    done
    echo "-- new, bf16, beta = 1"
    build/cutec bench gemm --dtype bf16 --layout tn --sizes 4096 --iters "$iters" --variants tensorop_smem --beta 1 2>&1
    # last: the longest (tensorop_test compiles some forty kernels)
    TEST_TIMEOUT=120 device_tests interp/inst_gpu_test atom/atom_lane_test kernels/gemm/spill_test \
        kernels/gemm/lib_test kernels/gemm/tensorop_test
} >"$log" 2>&1
tar -czf "$out/coldc2-logs.tgz" -C "$out" --exclude=coldc2-logs.tgz . 2>/dev/null
rm -rf "$basedir"
tail -n 100 "$log"
