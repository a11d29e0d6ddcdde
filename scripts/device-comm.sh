#!/bin/sh
# Issue 20 item 1 on a host with several GPUs: NCCL through cutec/comm.h (comm_test on the
# GPUs), then `cutec bench all-reduce|reduce-scatter|all-gather` and torch.distributed
# (bench/torch_nccl.py) on the same sizes in the same pass.  cutec runs with the system's
# libnccl.so.2 and with the one PyTorch ships (CUTEC_NCCL), so the comparison is NCCL for
# NCCL.  Logs go to $OUT (default build/device-out) and $OUT/comm.tgz.
#   SIZES=8M,128M,512M sh scripts/device-comm.sh
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-comm: skipped: no GPU here"; exit 0; }
log="$out/comm.log"
csizes=${SIZES:-8M,128M,512M}
{
    device_begin
    nvidia-smi topo -m 2>&1 | head -n 6
    device_tests comm/comm_test
    torch_nccl=$(python3 -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib', 'libnccl.so.2'))" 2>/dev/null)
    for op in all-reduce reduce-scatter all-gather; do
        echo "== $op, bf16: cutec (system NCCL), cutec (PyTorch's NCCL), torch.distributed"
        build/cutec bench $op --dtype bf16 --sizes "$csizes" 2>&1
        [ -f "$torch_nccl" ] && CUTEC_NCCL=$torch_nccl build/cutec bench $op --dtype bf16 --sizes "$csizes" 2>&1
        timeout 120 python3 bench/torch_nccl.py $op --dtype bf16 --sizes "$csizes" 2>&1 | grep -v Warning
    done
} 2>&1 | tee "$log" | tail -n "${TAIL:-80}"
tar czf /tmp/comm.tgz -C "$out" . && mv /tmp/comm.tgz "$out/"
