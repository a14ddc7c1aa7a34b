#!/usr/bin/env python3
"""addr2line's inline stacks agree with the rows.  For every address of a
.debug_line table whose last row is inlined, the stack `cudwarf addr2line
-i --json` prints must equal the chain built here from `cudwarf lines
--json` (context c = the row numbered c of the same sequence: ptxas's
numbers, docs/ptx-lines.md):
the paths and lines of each frame, and the inlined functions' names.

nvlink -arch=sm_90 leaves the .debug_str base words of linked -lineinfo
tables at 0, so the rows of its output name wrong functions; addr2line
recovers the bases.  For an nvlink output (link.g.cubin beside the -dc
objects it was linked from), the chains to match come from `cudwarf link`
of those objects, whose base words are right (check_link.py checks them
against the objects): addr2line on nvlink's file must name what the
objects say.

usage: check_addr2line.py CUDWARF FILE...
"""
import glob, json, os, subprocess, sys, tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import lines_json  # noqa: E402

cudwarf = sys.argv[1]
fail = 0
tmp = tempfile.mkdtemp()


def truth_of(path):
    """The file whose rows tell the truth about path's inlined functions."""
    d = os.path.dirname(path)
    with open(path, "rb") as f:
        sm = (int.from_bytes(f.read(52)[48:52], "little") >> 8) & 0xff
    if os.path.basename(path) != "link.g.cubin" or sm != 90:  # the bug is nvlink's sm_90 one
        return path, False
    ins = [os.path.join(d, "kern.rdc.cubin"), os.path.join(d, "other.rdc.cubin")]
    if not all(os.path.exists(p) for p in ins):
        ins = sorted(glob.glob(os.path.join(d, "*.rdc.cubin")))
    if not ins:
        return path, False
    out = os.path.join(tmp, "truth.cubin")
    r = subprocess.run([cudwarf, "link", "-o", out, *ins], capture_output=True, text=True)
    return (out, True) if r.returncode == 0 else (path, False)


for path in sys.argv[2:]:
    truth, relinked = truth_of(path)
    doc, = json.loads(subprocess.run([cudwarf, "lines", "--json", "--section", ".debug_line", truth],
                                     capture_output=True, text=True).stdout)
    want, locs = [], []
    for sec in doc["sections"]:
        for t in sec["tables"]:
            seqs, cur = [], []
            for r in lines_json.rows(t):
                cur.append(r)
                if r["end_sequence"]:
                    seqs.append(cur)
                    cur = []
            for seq in seqs:
                # context c names row number c: ptxas's numbers, which skip
                # the entry row written twice (it keeps its row's number)
                by_row = {}
                for r in seq:
                    by_row.setdefault(r["row"], r)
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
                        row = by_row[row["context"]]
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
          f"{max(len(w) for w in want)} deep, {bad} differ" + (" (names as in cudwarf link of its objects)"
                                                                if relinked else ""))
sys.exit(1 if fail else 0)
