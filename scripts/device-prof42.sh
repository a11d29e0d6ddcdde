#!/bin/sh
# The lead's early profile pass of session 42 (issues 16, 17, 18, 13), scripts/device-prof38.sh
# a part a lane (scripts/device-lanes.sh's "prof42=P:seconds"):
#   PART=gemv  the bf16 GEMV at 16384x4096 and 8192x8192 and the read-only row sum beside it
#   PART=fp4   the NVFP4 GEMV at issue 17's three shapes
#   PART=bwd   the attention backward d128 at 2x16x16384 (SDPA beside), where it is 97% of SDPA
#   PART=ln    the norms' forwards at 1024x262144 (LayerNorm's tail form) and the SM80 s8 GEMM
# Each under the tag prof42-PART ($OUT/prof42-PART.log).  What it decides: nothing (a profile).
case ${PART:-} in
gemv | fp4) CASES=$PART ;;
bwd) CASES=bwd BWD_SHAPE="2 16 16384 128" && export BWD_SHAPE ;;
ln) CASES="ln s8" ;;
*) echo "device-prof42: PART must be gemv, fp4, bwd or ln (got '${PART:-}')" && exit 2 ;;
esac
PROF_TAG=prof42-$PART BUDGET_S=${BUDGET_S:-170}
export CASES PROF_TAG BUDGET_S
exec sh scripts/device-prof38.sh "$@"
