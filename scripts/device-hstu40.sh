#!/bin/sh
# The SM80 HSTU kernel's grid order (src/kernels/attention/hstu.c `raster_bhq`), timed in turns:
# the default (B, H, Q tile), the example's block rasterization, against the SM80 forward's
# (Q tile, H, B), built from a copy of this tree with the one line flipped (about 60 s on one
# H200; log $OUT/hstu40.log).  Session 39 timed the new order once (4x4x8192 d128 171.3 /
# causal 189.4 TFLOP/s) against another session's old (172.6 / 154.3).  Each binary's kernel is
# checked against float64 first (`cutec run hstu` at an odd size, causal and not), then
# `cutec bench hstu --variant sm80` at the example's 4x4x8192 d128 and 16x4x4096 d64, causal and
# not (each bench prints both), in turns, two rounds; last, a jagged batch (AUTO) beside torch's
# dense form padded to the longest; torch's figure not taken (CUTEC_TORCH_HSTU=/dev/null).  Prints "decides:".
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-hstu40: skipped: no GPU here"; exit 0; }
log="$out/hstu40.log"
start=$(date +%s) budget=${BUDGET_S:-95}
shapes=${HSTU_SHAPES:-"--batch 4 --heads 4 --seqlen 8192 --headdim 128|--batch 16 --heads 4 --seqlen 4096 --headdim 64"}
rounds=${ROUNDS:-1 2}
alt=/tmp/hstu40-alt
{
    device_head
    rm -rf "$alt" && mkdir -p "$alt"
    tar --exclude=./build --exclude=./build-cache --exclude=./.wt -cf - . | tar -C "$alt" -xf -
    sed -i 's/^static const bool raster_bhq = true;/static const bool raster_bhq = false;/' "$alt/src/kernels/attention/hstu.c"
    grep -c "raster_bhq = false" "$alt/src/kernels/attention/hstu.c" | sed 's/^/flipped lines: /'
    (cd "$alt" && make -j16 build/cutec 2>&1 | grep -E "error|warning" | head)
    echo "== built the old order $(el_s)"
    for bin in build/cutec "$alt/build/cutec"; do
        for c in "" --causal; do
            printf 'check %s %s: ' "$bin" "$c"
            # shellcheck disable=SC2086
            timeout 15 $bin run hstu --variant sm80 --batch 3 --heads 2 --seqlen 1000 --headdim 128 $c 2>&1 | tail -n 1
        done
    done
    for round in $rounds; do
        echo "$shapes" | tr '|' '\n' | while read -r shape; do
            for bin in build/cutec "$alt/build/cutec"; do
                device_late "$bin $shape" && continue
                echo "-- round $round $bin $shape (the rows: not causal, causal) $(el_s)"
                # shellcheck disable=SC2086
                CUTEC_TORCH_HSTU=/dev/null timeout 15 $bin bench hstu --variant sm80 $shape --iters 10 2>&1 |
                    grep -E "^bf16|WRONG|rror"
            done
        done
    done
    echo "-- jagged (AUTO: the Hopper kernel) beside torch's dense form on the batch padded to the longest $(el_s)"
    device_late "jagged" || timeout 40 build/cutec bench hstu --jagged 4000,1,8192,0,3000 --heads 4 --headdim 128 --iters 10 2>&1 |
        grep -E "^bf16|^# torch|WRONG|rror"
    echo "decides: the (B, H, Q tile) grid stays where its rows lead the old order's in both rounds; else the flip (raster_bhq) goes back"
    device_end
} 2>&1 | tee "$log"
