#!/bin/sh
# The SM80 HSTU kernel's grid order (src/kernels/attention/hstu.c `raster_bhq`), timed in turns
# (about 80 s on one H200; log $OUT/hstu41.log): this tree, where a non-causal dense batch runs
# (Q tile, H, B) folded into grid x (its coordinates by cute_idx2crd: a 64-bit division a
# block; sm_90a d128 234 registers against 173, two blocks an SM either way) and causal keeps the
# example's (B, H, Q tile), against a copy built with the example's order everywhere (session
# 40's default; it timed the unfolded (Q tile, H, B) at d64 non-causal 153.6 against 148.1).
# Each binary's kernel is checked against float64 first (`cutec run hstu` at an odd size, causal
# and not), then `cutec bench hstu --variant sm80` at the example's 4x4x8192 d128 and 16x4x4096
# d64 (each bench prints both causalities; causal's kernel is the same in both binaries), in
# turns, two rounds; torch's figure not taken (CUTEC_TORCH_HSTU=/dev/null).  Prints "decides:".
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-hstu41: skipped: no GPU here"; exit 0; }
log="$out/hstu41.log"
start=$(date +%s) budget=${BUDGET_S:-95}
shapes=${HSTU_SHAPES:-"--batch 4 --heads 4 --seqlen 8192 --headdim 128|--batch 16 --heads 4 --seqlen 4096 --headdim 64"}
rounds=${ROUNDS:-1 2}
alt=/tmp/hstu41-alt
{
    device_head
    rm -rf "$alt" && mkdir -p "$alt"
    tar --exclude=./build --exclude=./build-cache --exclude=./.wt -cf - . | tar -C "$alt" -xf -
    sed -i 's/^    return p->cfg.causal || jagged;/    return (void)p, (void)jagged, true;/' "$alt/src/kernels/attention/hstu.c"
    grep -c "^    return (void)p, (void)jagged, true;" "$alt/src/kernels/attention/hstu.c" | sed 's/^/flipped lines: /'
    (cd "$alt" && make -j16 build/cutec 2>&1 | grep -E "error|warning" | head)
    echo "== built the example's order everywhere $(el_s)"
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
    echo "decides: the folded (Q tile, H, B) grid stays for non-causal where its rows lead the example's order in both rounds at both head dims; else raster_bhq returns true again"
    device_end
} 2>&1 | tee "$log"
