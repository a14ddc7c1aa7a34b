#!/usr/bin/env python3
"""addr2line's inline stacks agree with the rows.  For every address of a
.debug_line table whose last row is inlined, the stack `cudwarf addr2line
-i --json` prints must equal the chain built here from `cudwarf lines
--json` (context c = row c of the same sequence, FINDINGS 4.3): the paths
and lines of each frame, and the inlined functions' names.

usage: check_addr2line.py CUDWARF FILE...
"""
import json, subprocess, sys

cudwarf = sys.argv[1]
fail = 0
for path in sys.argv[2:]:
    doc = json.loads(subprocess.run([cudwarf, "lines", "--json", "--section", ".debug_line", path],
                                    capture_output=True, text=True).stdout)
    want, locs = [], []
    for sec in doc["sections"]:
        for t in sec["tables"]:
            seqs, cur = [], []
            for r in t["rows"]:
                cur.append(r)
                if r["end_sequence"]:
                    seqs.append(cur)
                    cur = []
            for seq in seqs:
                by_addr = {}
                for r in seq[:-1]:
                    by_addr[r["address"]] = r  # the last row at an address answers
                for addr, r in sorted(by_addr.items()):
                    if not r["context"] or not r["symbol"]:
                        continue
                    chain, row = [], r
                    while True:
                        chain.append((row["path"], row["line"], row["function"] if row["context"] else None))
                        if not row["context"]:
                            break
                        row = seq[row["context"] - 1]
                    locs.append(f"{r['symbol']}+0x{r['offset']:x}")
                    want.append(chain)
    if not locs:
        continue
    out = subprocess.run([cudwarf, "addr2line", "-i", "--json", "-e", path], input="\n".join(locs) + "\n",
                         capture_output=True, text=True)
    got = json.loads(out.stdout)
    bad = 0
    for w, g in zip(want, got):
        frames = [(f["path"], f["line"], f["function"]) for f in g["frames"]]
        # the outermost frame's function is the symbol the address lies in
        if [x[:2] for x in frames] != [x[:2] for x in w] or [x[2] for x in frames[:-1]] != [x[2] for x in w[:-1]]:
            bad += 1
            if bad < 3:
                print(f"     {g['location']}: addr2line {frames} vs rows {w}")
    ok = bad == 0 and len(got) == len(want)
    fail += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {path}: {len(want)} inlined addresses, stacks up to "
          f"{max(len(w) for w in want)} deep, {bad} differ")
sys.exit(1 if fail else 0)
