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

Inputs: the fixtures but zerobase_* (their rows name wrong functions:
nvlink's zero .debug_str base; build/gen's copy is checked with its link
inputs at hand) and build/gen's -lineinfo cubins (every fourth under the
sanitizer build) whose .debug_str holds names: ptxas writes DIE strings
inline, so that section is there for the names of inlined functions the
line tables' contexts give (a file without it has no inlined row).

    python3 -m pytest -m addr2line tests/ref/check_addr2line.py
"""
import glob
import json
import os

import pytest

import lines_json
from cubin_bytes import section_sizes
from suite_env import fixture_cubins, gen_sample, run, short

pytestmark = pytest.mark.addr2line


def truth_of(path, tmp_path):
    """The file whose rows tell the truth about path's inlined functions,
    and whether it is the relink of path's objects."""
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
    out = str(tmp_path / "truth.cubin")
    r = run("link", "-o", out, *ins)
    return (out, True) if r.returncode == 0 else (path, False)


def inlined_chains(path):
    """[(symbol+offset, [(path, line, function or None) innermost first])]
    for every address whose answering row is inlined."""
    p = run("lines", "--json", "--section", ".debug_line", path)
    assert p.returncode == 0, p.stderr
    doc, = json.loads(p.stdout)
    out = []
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
                    out.append((f"{r['symbol']}+0x{r['offset']:x}", chain))
    return out


def inputs():
    files = [f for f in fixture_cubins() if not os.path.basename(f).startswith("zerobase_")] + \
        [f for f in gen_sample() if "lineinfo" in f]
    return [f for f in files if section_sizes(f).get(".debug_str", 0) > 1]


@pytest.mark.parametrize("path", inputs(), ids=short)
def test_stacks(path, tmp_path, check):
    truth, relinked = truth_of(path, tmp_path)
    chains = inlined_chains(truth)
    assert chains, "its .debug_str names inlined functions, but no row is inlined"
    out = run("addr2line", "-i", "--json", "-e", path, input="\n".join(loc for loc, _ in chains) + "\n")
    got = json.loads(out.stdout)
    check("one answer per address", len(got) == len(chains), f"{len(got)} answers, {len(chains)} addresses")
    source = " (names as in cudwarf link of its objects)" if relinked else ""
    for (loc, w), g in zip(chains, got):
        frames = [(f["path"], f["line"], f["function"]) for f in g["frames"]]
        # the outermost frame's function is the symbol the address lies in
        check(f"{g['location']}: addr2line's stack = the rows' chain{source}",
              [x[:2] for x in frames] == [x[:2] for x in w] and [x[2] for x in frames[:-1]] == [x[2] for x in w[:-1]],
              f"addr2line {frames} vs rows {w}")
