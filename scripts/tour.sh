#!/bin/sh
# A short tour of the layout algebra on the layouts of "Demystifying CuTe" (seed 004):
#   scripts/tour.sh BUILD_DIR          (`make tour` calls it)
# Prints each command and its output; pictures go to BUILD_DIR/tour/.
set -eu
build=${1:?usage: scripts/tour.sh BUILD_DIR}
cutec=$build/cutec
out=$build/tour
mkdir -p "$out"

# step "what it shows" OP ARGS...: print the command, then run it
step() {
    echo
    echo "# $1"
    shift
    printf '$ cutec layout'
    for a in "$@"; do
        case $a in *[\(\)]*) printf ' "%s"' "$a" ;; *) printf ' %s' "$a" ;; esac
    done
    echo
    "$cutec" layout "$@"
}

step "a 4x8 column-major layout: shape (4,8), stride (1,4); the grid shows L(m,n)" \
    show "(4,8):(1,4)" --svg "$out/layout_4x8.svg"
step "row-major 4x3: stride 3 down a column, 1 along a row" show "(4,3):(3,1)"
step "coalesce: fewest modes with the same function (seed 004's ND copy)" \
    coalesce "(8,2,3):(1,8,16)"
step "composition: A o B, here a transpose, (8,3):(1,8) read through (3,8):(8,1)" \
    composition "(8,3):(1,8)" "(3,8):(8,1)"
step "complement: what (2,2):(1,6) leaves of 24 elements" complement "(2,2):(1,6)" 24
step "logical_divide: (6,20):(20,1) in (2,4) tiles, ((tile),(rest)) per mode" \
    logical_divide "(6,20):(20,1)" "(2,4)"
step "zipped_divide: the same tiles gathered as ((tile),(which tile))" \
    zipped_divide "(6,20):(20,1)" "(2,4)"
step "logical_divide by a layout tiler: every other element, 4 of them" \
    logical_divide "(4,2,3):(2,1,8)" "4:2"
step "blocked_product: 3x4 copies of a 2x2 block, each block contiguous" \
    blocked_product "(2,2):(1,2)" "(3,4):(1,3)"
step "raked_product: the same copies, interleaved" \
    raked_product "(2,2):(1,2)" "(3,4):(1,3)"
step "make_layout_tv: 2x4 threads with 2x2 values each -> tiler and (thread,value) layout" \
    show-tv "(2,4):(4,1)" "(2,2):(2,1)" --svg "$out/tv_2x4_2x2.svg"
step "Swizzle<3,0,3> over an 8x8 row-major tile: each row's columns XORed with the row" \
    swizzle_layout 3 0 3 "(8,8):(8,1)"

echo
echo "pictures:" "$out"/*.svg

# The DSL: an elementwise kernel traced, compiled and run -- on the GPU when there is one,
# else on the interpreter (which checks every access), verified against the CPU.
echo
echo "# an f16 add traced to IR and CUDA C (no GPU needed), then run and verified"
echo "\$ cutec compile elementwise --op add --dtype f16 --emit cuda | head -20"
"$cutec" compile elementwise --op add --dtype f16 --emit cuda | head -20
if "$cutec" bench jit | grep -q "skipped: no GPU"; then
    shape=512x512
else
    shape=8192x8192
fi
for op in add gelu; do
    echo "\$ cutec run elementwise --op $op --dtype f16 --shape $shape"
    "$cutec" run elementwise --op "$op" --dtype f16 --shape "$shape" --iters 5 || exit 1
done
