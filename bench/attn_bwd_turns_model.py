#!/usr/bin/env python3
"""A model of the fused Hopper backward's schedule (issue 18; bench/RESULTS.md, attnb41): why
the deterministic order of dQ's adds costs more at 2x16x16384 than at 8x16x4096.

4096 blocks, a (batch, key tile, head) each, launched in the grid's order (batch fastest, key
tiles down, heads last) on 132 SMs, each block L steps (a 64-query tile a step: 64 at 4k, 256
at 16k).  A block's consumers compute step i once step i - 1 is computed and the writer has
added step i - AHEAD (its buffers); the writer adds step i once it is computed and the
chunk's turn has come: the block `sums` ranks above (the one launched sums x B blocks before)
released the chunk's count, which it does a step late (once its step i + 1 add is issued)
plus a latency.  Times in steps of an SM of speed 1; each SM's speed spread by SIGMA (kept),
each step's by JITTER.  Prints each shape's makespan with one sum (the default), two (the
key tiles dealt into two sums by rank: session 41's opt-in, deleted) and none (fused-atomic),
and the default's share of the work.  No L2 in it: measured (H200, in turns, four rounds),
no order x1.026 at 16k (the model at SIGMA 0.02: x1.032) but x0.960 at 4k (its zeroing pass
and its adds' contention, not modelled: x1.011), two sums x0.983 at both (x1.016 / x1.006:
their 48 MB of L2's reuse against 32, not modelled).

    python3 bench/attn_bwd_turns_model.py [SIGMA JITTER]
"""
import heapq
import random
import sys

SMS, AHEAD, DELTA, ADD, LAUNCH, EPILOGUE = 132, 2, 0.4, 0.15, 0.5, 1.0


def makespan(batches, key_tiles, heads, steps, sums, sigma, jitter, atomic=False, seed=1):
    rnd = random.Random(seed)
    speed = [1 + rnd.gauss(0, sigma) for _ in range(SMS)]
    free = [(0.0, s) for s in range(SMS)]
    heapq.heapify(free)
    released, end, work = {}, 0.0, 0.0
    for h in range(heads):
        for rank in range(key_tiles):
            for b in range(batches):
                start, sm = heapq.heappop(free)
                before = None if atomic or rank < sums else released[(b, h, rank - sums)]
                done, added, rel = start + LAUNCH, [0.0] * steps, [0.0] * steps
                for i in range(steps):
                    held = added[i - AHEAD] if i >= AHEAD else 0.0
                    done = max(done, held) + speed[sm] * (1 + rnd.gauss(0, jitter))
                    added[i] = max(done, before[i] if before else 0.0, added[i - 1] if i else 0.0) + ADD
                    if i:
                        rel[i - 1] = added[i] + DELTA
                rel[-1] = added[-1] + DELTA
                released[(b, h, rank)] = rel
                released.pop((b, h, rank - 2 * sums), None)
                finish = rel[-1] + EPILOGUE
                work += steps * speed[sm]
                end = max(end, finish)
                heapq.heappush(free, (finish, sm))
    return end, work / SMS


def main():
    sigma = float(sys.argv[1]) if len(sys.argv) > 1 else 0.02
    jitter = float(sys.argv[2]) if len(sys.argv) > 2 else 0.05
    for name, batches, key_tiles, steps in (("8x16x4096", 8, 32, 64), ("2x16x16384", 2, 128, 256)):
        one, work = makespan(batches, key_tiles, 16, steps, 1, sigma, jitter)
        two, _ = makespan(batches, key_tiles, 16, steps, 2, sigma, jitter)
        none, _ = makespan(batches, key_tiles, 16, steps, 1, sigma, jitter, atomic=True)
        print(f"{name} (SMs spread {sigma}, steps {jitter}): one sum {one:.0f} steps ({work / one:.3f} of the work's), "
              f"two sums x{one / two:.4f}, no order x{one / none:.4f}")


if __name__ == "__main__":
    main()
