"""Check that every .nv_debug_line_sass row points at a PTX instruction
inside the body of the function the row's address lies in.

The PTX text is read here from the cubin's .nv_debug_ptx_txt sections
(NUL-separated lines, FINDINGS 4.5) and parsed for function bodies
(.entry/.func NAME ... { ... }); the rows come from `cudwarf lines --json`;
the function an address lies in comes from the ELF symbol table (FUNC
symbols: value and size within the sequence's section).  A row may point
at the body's opening brace (each function's first row does: ptxas maps
the prologue there) or at an instruction; never at a blank line, a
directive, a label, or outside the function.

Inputs: the fixtures and build/gen's cubins (every fourth under the
sanitizer build), each .nv_debug_line_sass and its Mercury twin.

    python3 -m pytest -m sass_ptx tests/ref/check_sass_ptx.py
"""
import json
import re

import pytest

import lines_json
from cubin_bytes import func_symbols, ptx_bodies, ptx_texts, sections
from suite_env import fixture_cubins, gen_sample, run, views

pytestmark = pytest.mark.sass_ptx


ENTRY_LABEL = re.compile(r"^\$?L_*func_begin\d+:$")


def is_instruction(text):
    t = text.split("//")[0].strip()
    if not t or t.startswith(".") or t.startswith("//") or t in ("{", "}") or t.endswith(":"):
        return False
    return True


@pytest.mark.parametrize("path,section", views(fixture_cubins() + gen_sample(),
                                                 (".nv_debug_line_sass", ".nv.merc.nv_debug_line_sass")))
def test_rows(path, section):
    data = open(path, "rb").read()
    secs = sections(data)
    ptx = ptx_texts(data, secs)
    bodies = {n: ptx_bodies(v) for n, v in ptx.items()}
    p = run("lines", "--json", "--section", section, path)
    assert p.returncode == 0, f"cudwarf exited {p.returncode}: {p.stderr.strip()}"
    funcs = {n: (shndx, value, size) for n, shndx, value, size in
             func_symbols(data, secs, 0x70000085 if ".merc." in section else 2)}
    rows = bad = braces = 0
    msgs = []
    for t in json.loads(p.stdout)[0]["sections"][0]["tables"]:
        fnames = [f["name"] for f in t["files"]]
        for r in lines_json.rows(t):
            if r["end_sequence"]:
                continue
            rows += 1
            src = fnames[r["file"] - 1] if r["file"] else None
            if src is None:
                src = next(iter(ptx)) if len(ptx) == 1 else None
            text_lines = ptx.get(src)
            # the function the SASS address lies in
            shndx, value, size = funcs.get(r["symbol"], (None, 0, 0))
            fn = r["symbol"]
            for n, (s2, v2, z2) in funcs.items():
                if s2 == shndx and v2 <= r["address"] < v2 + z2 and v2 >= value:
                    fn, value = n, v2
            if fn.startswith("$") and "$" in fn[1:]:
                fn = fn.rsplit("$", 1)[1]  # "$kernel$callee": a callee laid out in the kernel
            body = bodies.get(src, {}).get(fn)
            line = r["line"]
            why = None
            if text_lines is None:
                why = f"no PTX text section for file {r['file']}"
            elif body is None:
                why = f"function {fn} not found in {src}"
            elif not (body[0] <= line <= body[1]):
                why = f"line {line} outside {fn}'s body {body}"
            elif line == body[0] or ENTRY_LABEL.match(text_lines[line - 1].strip()):
                braces += 1  # the function's entry: its opening brace or begin label
            elif not is_instruction(text_lines[line - 1]):
                why = f"line {line} is not an instruction: {text_lines[line - 1]!r}"
            if why:
                bad += 1
                if len(msgs) < 5:
                    msgs.append(f"{r['symbol']}+0x{r['address']:x}: {why}")
    assert rows > 0 and bad == 0, f"{rows} rows ({braces} at a function entry), {bad} bad:\n" + "\n".join(msgs)
