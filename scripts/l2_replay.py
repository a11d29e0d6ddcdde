#!/usr/bin/env python3
"""A and B read from HBM by the SM80 GEMM's schedules, replayed through an LRU model of L2.

Every 128 x 128 k-slice of A or B (16 KB of s8) is one cache line of the model; each block
reads its tile's A and B slices of one k-tile a step, all blocks in step.  Schedules (s8,
128 x 128 x 128 tiles, the scheduler's raster order of bands of 8 N-tiles):
  auto       a block a tile: tile u on block slot u % G in round u / G, rounds in lockstep;
  plain      stream-K's runs (streamk.c's gemm_streamk_make_all): G contiguous runs of the
             (tile, k-tile) iterations, each walked last tile first;
  staggered  (the deleted form, docs/gemm.md): slot c its tiles c, c + G, ..., shifted by c K / G k-tiles.
Usage: scripts/l2_replay.py [SIZE ...] (default 4096 8192), L2 of 25 and 50 MB.  It models
reuse only: no bandwidth, no timing, no C."""
import collections
import sys

SLOTS = 264  # a block a tile's resident blocks on an H200 (two an SM)


def raster(tiles_m, tiles_n, band=8):
    out = []
    for first in range(0, tiles_n, band):
        for m in range(tiles_m):
            out += [(m, first + j) for j in range(min(band, tiles_n - first))]
    return out


def auto(T, K, G):
    sched = [[] for _ in range(G)]
    for u in range(T):
        sched[u % G] += [(u, k) for k in range(K)]
    return sched


def plain(T, K, G):
    N, sched = T * K, []
    for b in range(G):
        items = collections.OrderedDict()
        for g in range(b * N // G, (b + 1) * N // G):
            items.setdefault(g // K, []).append(g % K)
        sched.append([(u, k) for u in sorted(items, reverse=True) for k in items[u]])
    return sched


def staggered(T, K, G):
    sched = []
    for c in range(G):
        tiles, h = list(range(c, T, G)), c * K // G
        blk = [(tiles[-1], k) for k in range(h)]
        for u in tiles[:-1]:
            blk += [(u, k) for k in range(K)]
        sched.append(blk + [(tiles[-1], k) for k in range(h, K)])
    return sched


def hbm_mb(sched, tiles, l2_mb):
    cap, cache, miss = int(l2_mb * 1024 / 16), collections.OrderedDict(), 0
    for t in range(max(len(b) for b in sched)):
        for blk in sched:
            if t < len(blk):
                u, k = blk[t]
                for key in (("A", tiles[u][0], k), ("B", tiles[u][1], k)):
                    if key in cache:
                        cache.move_to_end(key)
                    else:
                        miss += 1
                        cache[key] = True
                        if len(cache) > cap:
                            cache.popitem(last=False)
    return miss * 16 / 1024


for size in [int(s) for s in sys.argv[1:]] or [4096, 8192]:
    tm = (size + 127) // 128
    T, K, tiles = tm * tm, tm, raster(tm, tm)
    waves = -(-T // SLOTS)
    for name, s in (("auto", auto(T, K, SLOTS)), ("plain", plain(T, K, SLOTS)),
                    ("staggered", staggered(T, K, -(-T // waves)))):
        print("%d^3 %-9s A and B from HBM: %s MB (L2 25 / 50 MB)" %
              (size, name, " / ".join("%.0f" % hbm_mb(s, tiles, c) for c in (25, 50))), flush=True)
