#!/usr/bin/env python3
"""ncu_top.py (the lead's /work/device-prof29/top.py) NAME-sass.csv [N [REGEX]]: the stall reasons summed over a kernel, then the
N SASS instructions with the most samples (each with its top reasons), one kernel after another.  With REGEX, only the
instructions whose text it matches, after a line of their share of the samples and of each reason's (device-attnb43.sh:
the waits, 'BAR|SYNCS|DEPBAR').  The CSV: `ncu --import REP --page source --csv --print-source sass`."""
import csv, sys, collections, re
def kernels(path):
    cur, rows, hdr = None, [], None
    for r in csv.reader(open(path)):
        if len(r) >= 2 and r[0] == 'Kernel Name':
            if cur: yield cur, hdr, rows
            cur, rows, hdr = r[1], [], None
        elif r and r[0] == 'Address': hdr = r
        elif hdr and len(r) == len(hdr): rows.append(r)
    if cur: yield cur, hdr, rows
n = int(sys.argv[2]) if len(sys.argv) > 2 else 30
only = re.compile(sys.argv[3]) if len(sys.argv) > 3 else None
for name, hdr, rows in kernels(sys.argv[1]):
    si = hdr.index('Warp Stall Sampling (All Samples)')
    st = [i for i, h in enumerate(hdr) if h.startswith('stall_') and 'Not Issued' not in h]
    num = lambda x: float(x.replace(',', '')) if x not in ('', '-') else 0.0
    tot = collections.Counter()
    for r in rows:
        for i in st: tot[hdr[i]] += num(r[i])
    all_ = sum(tot.values()) or 1
    print(f'== {name}: {len(rows)} SASS instructions, {int(all_)} stall samples')
    print('   ' + ', '.join(f'{k[6:]} {100*v/all_:.1f}%' for k, v in tot.most_common(10)))
    picked = [(i, r) for i, r in enumerate(rows) if not only or only.search(r[1])]
    if only:
        part = collections.Counter()
        for _, r in picked:
            for i in st: part[hdr[i]] += num(r[i])
        print(f'   {len(picked)} instructions match {only.pattern!r}: {100*sum(part.values())/all_:.1f}% of the samples; '
              + ', '.join(f'{k[6:]} {100*v/all_:.1f}%' for k, v in part.most_common(4)))
    for idx, r in sorted(picked, key=lambda p: -num(p[1][si]))[:n]:
        rs = sorted(((num(r[i]), hdr[i][6:]) for i in st), reverse=True)[:3]
        print(f'  {100*num(r[si])/all_:5.1f}%  #{idx:<5d} {r[1].strip()[:70]:70s} ' + ' '.join(f'{k}:{int(v)}' for v, k in rs if v))
