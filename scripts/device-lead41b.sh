#!/bin/sh
# The lead's check of the rows after session 41's last merge (tailfix: ln41's tail the default
# again, its weight-only write chain mended) on one H200: the row programs on the GPU (every
# kernel against float64), about 150 s; log $OUT/lead41b.log.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead41b: skipped: no GPU here"; exit 0; }
log="$out/lead41b.log"
start=$(date +%s)
{
    device_head
    TEST_TIMEOUT=200 device_tests kernels/rows/rows_gpu_test kernels/rows/norms_test
    device_end
} 2>&1 | tee "$log"
