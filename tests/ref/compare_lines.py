"""`cudwarf lines --json` rows against elfutils libdw's (tests/oracles/libdw_lines).

Views: .debug_line, .nv_debug_line_sass, and on sm_100+ their Mercury twins.
The oracle reads a copy with relocations applied and, for the other
views, the section shown as .debug_line (cubin_prep's swaps).  Rows are
compared in emission order: address, file path, line, is_stmt,
end_sequence, inline context and the inlined function's name.

Two oracle quirks are normalized, not hidden: libdw prints "???" for file
0 (whole-program .nv_debug_line_sass rows; ours: no path), and joins the
compilation directory to .nv_debug_line_sass file names, which are section
names (`.nv_debug_ptx_txt.N`), not files relative to it.  A context libdw
rejects ('?': >= the table's row count, FINDINGS 4.3) must be nonzero here.

Inputs: the fixtures and the outside cubins (suite lines), build/gen's
cubins (suite gen; every fourth under the sanitizer build).

    python3 -m pytest -m lines tests/ref/compare_lines.py
    python3 -m pytest -m gen -k line_sass tests/ref/compare_lines.py
"""
import json
import subprocess

import pytest

import lines_json
from suite_env import LIBDW_LINES, ref_views, run

VIEWS = {".debug_line": [], ".nv_debug_line_sass": ["-s", ".nv_debug_line_sass"],
         ".nv.merc.debug_line": ["-m"], ".nv.merc.nv_debug_line_sass": ["-m", "-s", ".nv_debug_line_sass"]}


def oracle(path, extra):
    p = subprocess.run([LIBDW_LINES, "-r", *extra, path], capture_output=True, text=True)
    tables, cur = [], None
    for line in p.stdout.splitlines():
        if line.startswith("# table"):
            cur = []
            tables.append(cur)
        elif line.startswith("#") or not line.strip():
            continue
        else:
            a, seq, f, ln, col, st, es, ctx, fn = line.split("\t")
            cur.append((int(a, 16), None if f == "???" else f, int(ln), st == "1", es == "1",
                        ctx if ctx == "?" else int(ctx), None if fn == "-" else fn))
    return tables


def ours(path, section):
    p = run("lines", "--json", "--section", section, path)
    assert p.returncode == 0, f"cudwarf lines exited {p.returncode}: {p.stderr.strip()}"
    doc, = json.loads(p.stdout)  # a cubin: an array of one image
    res = []
    for sec in doc["sections"]:
        for t in sec["tables"]:
            res.append([(r["address"], r["path"], r["line"], r["is_stmt"], r["end_sequence"], r["context"],
                         r["function"]) for r in lines_json.rows(t)])
    return res


def same(ref, mine, sass):
    if ref[5] == "?":
        if not mine[5]:
            return False
        ref = ref[:5] + (mine[5],) + ref[6:]
    if sass and ref[1] and mine[1] and ref[1] != mine[1] and ref[1].endswith("/" + mine[1]):
        ref = (ref[0], mine[1]) + ref[2:]
    return ref == mine


def check_view(path, section):
    mine = ours(path, section)
    ref = oracle(path, VIEWS[section])
    rows = sum(len(t) for t in ref)
    bad, msgs, inl = 0, [], 0
    if len(ref) != len(mine):
        bad += 1
        msgs.append(f"{len(mine)} tables vs libdw's {len(ref)}")
    for ti, (rt, mt) in enumerate(zip(ref, mine)):
        if len(rt) != len(mt):
            bad += abs(len(rt) - len(mt))
            msgs.append(f"table {ti}: {len(mt)} rows vs libdw's {len(rt)}")
        for k, (r, m) in enumerate(zip(rt, mt)):
            inl += 1 if m[5] else 0
            if not same(r, m, "sass" in section):
                bad += 1
                if len(msgs) < 5:
                    msgs.append(f"table {ti} row {k}: libdw {r} vs ours {m}")
    assert rows > 0 and bad == 0, f"{rows} rows ({inl} inlined), {bad} differ:\n" + "\n".join(msgs)


@pytest.mark.parametrize("path,section", ref_views(VIEWS, pytest.mark.lines))
def test_view(path, section):
    check_view(path, section)
