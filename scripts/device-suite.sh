#!/bin/sh
# The whole test suite on a GPU, split over lanes: part PART of PARTS (default 0 of 1) of
# scripts/run-tests.sh's programs (CUTEC_TEST_PART), with a JIT cache of its own that starts
# empty, so every kernel's first compile is a cold one and, with tiers on (the default since
# session 34: docs/compile_time.md "Tiers"), the tests' first calls run the PTX path's module
# before NVRTC's replaces it.  A FAIL here that CUTEC_TIER=0 does not show is the first tier's.
#   LANE0="suite=0:500" LANE1="suite=1:500" ... sh scripts/device-lanes.sh   (PARTS=4)
# Log $OUT/suite-PART.log: every program's line, the failures' tails, the total.
set -u
out=${OUT:-build/device-out}
mkdir -p "$out"
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-suite: skipped: no GPU here"; exit 0; }
part=${PART:-0} parts=${PARTS:-4}
[ -n "$part" ] || part=0
log="$out/suite-$part.log"
rm -rf "$out/cache"
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null); part $part of $parts; CUTEC_TIER=${CUTEC_TIER:-(default)}"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader 2>&1
    CUTEC_CACHE_DIR="$out/cache" CUTEC_TEST_PART="$part/$parts" CUTEC_TEST_JOBS=${JOBS:-12} \
        CUTEC_TEST_TIMEOUT=${TEST_TIMEOUT:-420} sh scripts/run-tests.sh build
} >"$log" 2>&1
grep -E "^FAIL|^ +[|>]|passed, .* failed" "$log" | tail -n 60
