#!/usr/bin/env python3
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

usage: check_sass_ptx.py CUDWARF FILE...
"""
import json, os, re, struct, subprocess, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import lines_json  # noqa: E402


def elf_sections(data):
    shoff = struct.unpack_from("<Q", data, 40)[0]
    shnum, shstrndx = struct.unpack_from("<HH", data, 60)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + 64 * i) for i in range(shnum)]
    stroff = hdrs[shstrndx][4]
    secs = []
    for h in hdrs:
        end = data.index(b"\0", stroff + h[0])
        secs.append((data[stroff + h[0]:end].decode(), h))
    return secs


def functions(data, secs, symtab_type):
    """name -> (section index, value, size) for the FUNC symbols of .symtab
    (type 2) or, for the Mercury tables, .nv.merc.symtab (0x70000085)"""
    out = {}
    for name, h in secs:
        if h[1] != symtab_type:
            continue
        strtab = secs[h[6]][1]
        for k in range(h[5] // 24):
            nm, info, other, shndx, value, size = struct.unpack_from("<IBBHQQ", data, h[4] + 24 * k)
            if info & 0xF == 2:
                end = data.index(b"\0", strtab[4] + nm)
                out[data[strtab[4] + nm:end].decode()] = (shndx, value, size)
    return out


FUNC_RE = re.compile(r"^(?:\.visible\s+|\.extern\s+|\.weak\s+)*\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([\w$.]+)")


def ptx_bodies(lines):
    """function name -> (first line, last line) of its { ... } body, 1-based"""
    bodies, name, depth, start = {}, None, 0, 0
    for i, raw in enumerate(lines, 1):
        text = raw.split("//")[0].strip()  # "{ // callseq 7, 0" keeps its comment
        m = FUNC_RE.match(text)
        if m and depth == 0:
            name = m.group(1)
        if depth == 0 and text.endswith(";"):
            name = None  # a prototype (or a data initializer "= {...};"), not a body
            continue
        opens, closes = text.count("{"), text.count("}")
        if opens and depth == 0 and name:
            start = i
        depth += opens
        if closes and depth:
            depth -= closes
            if depth == 0 and name:
                bodies[name] = (start, i)
                name = None
    return bodies


ENTRY_LABEL = re.compile(r"^\$?L_*func_begin\d+:$")


def is_instruction(text):
    t = text.split("//")[0].strip()
    if not t or t.startswith(".") or t.startswith("//") or t in ("{", "}") or t.endswith(":"):
        return False
    return True


def main():
    cudwarf = sys.argv[1]
    fail = 0
    for path in sys.argv[2:]:
        data = open(path, "rb").read()
        secs = elf_sections(data)
        names = [n for n, _ in secs]
        ptx = {n: data[h[4]:h[4] + h[5]].split(b"\0")[:-1] for n, h in secs if n.startswith(".nv_debug_ptx_txt")}
        ptx = {n: [l.decode("utf-8", "replace") for l in v] for n, v in ptx.items()}
        bodies = {n: ptx_bodies(v) for n, v in ptx.items()}
        for section in (".nv_debug_line_sass", ".nv.merc.nv_debug_line_sass"):
            if section not in names:
                continue
            p = subprocess.run([cudwarf, "lines", "--json", "--section", section, path], capture_output=True, text=True)
            if p.returncode:
                print(f"FAIL {path} {section}: cudwarf exited {p.returncode}: {p.stderr.strip()}")
                fail += 1
                continue
            funcs = functions(data, secs, 0x70000085 if ".merc." in section else 2)
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
                        if len(msgs) < 3:
                            msgs.append(f"{r['symbol']}+0x{r['address']:x}: {why}")
            ok = bad == 0 and rows > 0
            fail += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {path} {section}: {rows} rows ({braces} at a function entry), {bad} bad")
            for m in msgs:
                print("     " + m)
    sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main()
