#!/bin/sh
# prof39's pass (issues 18 and 16): scripts/device-prof38.sh's cases bwd (the attention
# backward d128 8x16x4096, not causal and causal, beside SDPA's backward kernels) and ln (the
# norms' forwards at 1024x262144 and LayerNorm at 4096x32768, beside a copy kernel), under the
# tag prof39: the log $OUT/prof39.log, the raw files $OUT/prof39-CASE*.txt.  At most 150 s on
# one H200 after the build; device-prof38.sh's header says how to read the tables.  CASES
# picks others; `sh scripts/device-prof39.sh units` checks the reading of ncu's units without
# a GPU.  What it decides: nothing (a profile).
CASES=${CASES:-bwd ln}
PROF_TAG=${PROF_TAG:-prof39}
export CASES PROF_TAG
exec sh scripts/device-prof38.sh "$@"
