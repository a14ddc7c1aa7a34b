"""The golden checks of the DWARF views: lines, addr2line, dump --info, --abbrev,
--line, --frames, --pubnames, --str, each against its reference tool
(tests/golden/README.md).  check_X(case, text, R): parse the golden text,
run the reference, R.eq(what, golden's value, reference's value)."""
import re

from golden_refs import (Unavailable, code_of, demangle, dw_names, elf_relocs, elf_sections,
                         form_span, frames_at, libdw_headers, libdw_tables, llvm_dies, llvm_line_files, num,
                         prepped, resolve_symbol, section_bytes, seq_symbols, sym_values, tool, uleb)


def counted_rows(rows):
    """A sequence's rows as ptxas numbers them: a row that repeats the one
    before it (address, file, line, context) is not counted (lines.h has
    the whole rule; the goldens' cubins need no more of it)."""
    out, prev = [], None
    for x in rows:
        key = (x.addr, x.file, x.line, x.ctx)
        if key != prev:
            out.append(x)
        prev = key
    return out


def check_lines(case, text, R):
    """lines [--long] [--ptx]: every row against libdw's, sequence symbols against readelf -r."""
    path = case.input
    views, cur_view, table, seq, files, funcs = [], None, None, None, {}, {}
    for line in text.splitlines():
        m = re.match(r"^(\.\S+) table at 0x([0-9a-f]+): version (\d+), (\d+) files?", line)
        if m:
            if m[1] != cur_view:
                cur_view = m[1]
                views.append((cur_view, []))
            table = dict(seqs=[], files={}, offset=int(m[2], 16), nfiles=int(m[4]))
            views[-1][1].append(table)
            seq, files, funcs = None, table["files"], {}
            continue
        m = re.match(r"^  file (\d+): (.*?)( \(the PTX text\))?$", line)
        if m:
            files[int(m[1])] = m[2]
            continue
        m = re.match(r"^ sequence (\d+): (.*)$", line)
        if m:
            seq = dict(index=int(m[1]), symbol=m[2], rows=[])
            table["seqs"].append(seq)
            continue
        m = re.match(r"^  0x([0-9a-f]+)  (\S+)\+0x([0-9a-f]+)  ([^:]*):(\d+)(?::(\d+))? ([A-Z]*)"
                     r"(?:  inlined at row (\d+)(?: \(([^:]*):(\d+)(?::(\d+))?\))?: (\S+))?$", line)
        if m and "--long" in case.args:  # one row a line, with its symbol
            if seq is None or seq["rows"] and seq["rows"][-1]["end"]:
                seq = dict(index=len(table["seqs"]), symbol=m[2], rows=[])
                table["seqs"].append(seq)
            seq["rows"].append(dict(addr=int(m[1], 16), symbol=m[2], off=int(m[3], 16), file=m[4], fileno=None,
                                    line=int(m[5]), col=int(m[6] or 0), flags=m[7], end="E" in m[7],
                                    ctx=int(m[8] or 0), func=m[12], ptx=None,
                                    site=(m[9], int(m[10]), int(m[11] or 0)) if m[10] else None))
            continue
        m = re.match(r"^  0x([0-9a-f]+)  (?:(\d+):(\d+)(?::(\d+))?)?\s*([A-Z]*)(.*)$", line)
        if m and seq is not None:
            rest, ctx, func, ptx = m[6], 0, None, None
            if " | " in rest or rest.startswith("  |"):
                rest, ptx = rest.split("|", 1)
                ptx = ptx[1:] if ptx.startswith(" ") else ptx
            im = re.search(r"inlined at row (\d+)(?: \((\d+):(\d+)(?::(\d+))?\))?, function (\d+)(?:: (\S+))?", rest)
            site = None
            if im:
                ctx = int(im[1])
                site = (files.get(int(im[2]), "?"), int(im[3]), int(im[4] or 0)) if im[2] else None
                im = [None, im[1], im[5], im[6]]
                if im[3]:
                    funcs[int(im[2])] = im[3]
                func = funcs.get(int(im[2]), f"?function {im[2]}")
            seq["rows"].append(dict(addr=int(m[1], 16), file=files.get(int(m[2]), "?") if m[2] else None,
                                    fileno=int(m[2]) if m[2] else None, line=int(m[3]) if m[3] else None,
                                    col=int(m[4] or 0), flags=m[5], end="E" in m[5], ctx=ctx, func=func,
                                    ptx=ptx, site=site))
    if not views:
        R.fail("no line table in the golden")
    for view, tables in views:
        ref = libdw_tables(path, view)
        heads = libdw_headers(path, view)
        R.eq(f"{view}: tables", len(tables), len(ref))
        for t, h in zip(tables, heads):  # libdw counts file 0 too
            R.eq(f"{view} table offset", t["offset"], h["offset"])
            R.eq(f"{view} table 0x{h['offset']:x} files", t["nfiles"], h["files"] - 1)
        syms = seq_symbols(path, view)
        ptx_lines = None
        for ti, (t, rt) in enumerate(zip(tables, ref)):
            where = f"{view} table {ti}"
            ours = [(s, r) for s in t["seqs"] for r in s["rows"]]
            R.eq(f"{where}: rows", len(ours), len(rt))
            if syms is not None and ti == 0:
                R.eq(f"{where}: sequence symbols", [s["symbol"] for s in t["seqs"]], syms[:len(t["seqs"])])
            per_seq = {}
            for k, ((s, o), r) in enumerate(zip(ours, rt)):
                w = f"{where} row {k} (0x{o['addr']:x})"
                per_seq[s["index"]] = per_seq.get(s["index"], 0) + 1
                R.eq(f"{w} address", o["addr"], r.addr)
                R.eq(f"{w} sequence", s["index"], r.seq)
                R.eq(f"{w} is_stmt", "S" in o["flags"], r.stmt)
                R.eq(f"{w} end_sequence", o["end"], r.end)
                if o.get("symbol") is not None:
                    if syms is not None:
                        R.eq(f"{w} symbol", o["symbol"], syms[s["index"]])
                    R.eq(f"{w} symbol offset", o["off"], o["addr"] - sym_values(path).get(o["symbol"], 0))
                if o["line"] is not None:
                    R.eq(f"{w} line", o["line"], r.line)
                    R.eq(f"{w} column", o["col"], r.col)
                if o["file"] is not None and not o["end"] or o["fileno"] is None and o["file"] is not None:
                    if r.file is None:  # libdw's "???": file 0, the PTX section itself
                        R.eq(f"{w} file", o["fileno"] if o["fileno"] is not None else o["file"],
                             0 if o["fileno"] is not None else ".nv_debug_ptx_txt")
                    elif view.endswith("line_sass"):  # libdw joins the comp dir to a section name
                        R.eq(f"{w} file", r.file.endswith("/" + o["file"]) or r.file == o["file"], True)
                    else:
                        R.eq(f"{w} file", o["file"], r.file)
                if not o["end"]:
                    rctx = o["ctx"] if r.ctx == "?" and o["ctx"] else r.ctx
                    R.eq(f"{w} context", o["ctx"], rctx)
                    R.eq(f"{w} function", o["func"], r.func)
                if o.get("site"):  # the call site shown beside the row number: that row of the reference's
                    at = counted_rows([x for x in rt if x.seq == r.seq])
                    want = at[o["ctx"] - 1] if 0 < o["ctx"] <= len(at) else None
                    R.eq(f"{w} call site", o["site"], want and (want.file, want.line, want.col))
                if o["ptx"] is not None:
                    if ptx_lines is None:
                        name = o["file"] or ".nv_debug_ptx_txt"
                        raw = section_bytes(path, name)
                        if raw is None:
                            raise Unavailable(f"readelf finds no {name} in {path}")
                        ptx_lines = raw.decode("utf-8", "replace").replace("\n", "\0").split("\0")
                    want = ptx_lines[o["line"] - 1].strip() if 0 < o["line"] <= len(ptx_lines) else None
                    R.eq(f"{w} PTX text", o["ptx"].strip(), want)


def a2l_locations(args):
    """addr2line's locations from the case's arguments."""
    out, skip = [], False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ("-e", "--function", "--sm"):
            skip = True
        elif not a.startswith("-"):
            out.append(a)
    return out


def parse_a2l(text, locs, pretty, funcs):
    """{location: [(function, path, line)]} from addr2line -a output."""
    lines, res, i = text.splitlines(), {}, 0
    for k, loc in enumerate(locs):
        head = lines[i]
        if not head.startswith(loc):
            raise ValueError(f"answer {k} starts {head!r}, not {loc!r}")
        i += 1
        frames, label = [], re.match(r"^\S+(?: \[(.*)\])?", head)[1]
        if pretty:
            m = re.match(r"^\S+(?: \[.*\])?: (.*) at (.*?):(\d+|\?)$", head)
            frames.append((m[1], m[2], m[3]))
            while i < len(lines) and lines[i].startswith(" (inlined by) "):
                m = re.match(r"^ \(inlined by\) (.*) at (.*?):(\d+|\?)$", lines[i])
                frames.append((m[1], m[2], m[3]))
                i += 1
        else:
            nxt = locs[k + 1] if k + 1 < len(locs) else None
            while i < len(lines) and not (nxt and lines[i].startswith(nxt) and (
                    lines[i] == nxt or lines[i].startswith(nxt + " ["))):
                fn = lines[i] if funcs else None
                i += 1 if funcs else 0
                m = re.match(r"^(.*):(\d+|\?)$", lines[i])
                frames.append((fn, m[1], m[2]))
                i += 1
        res[loc] = (label, [(f, p, int(n) if n.isdigit() else 0) for f, p, n in frames])
    if i != len(lines):
        raise ValueError(f"{len(lines) - i} lines after the last answer")
    return res


def check_addr2line(case, text, R):
    """Each answer against libdw's rows (inline contexts) or llvm's inlined-subroutine DIEs."""
    path, args = case.input, case.args
    locs = a2l_locations(args)
    want_fn = "-f" in args or "-p" in args
    res = parse_a2l(text, locs, "-p" in args, want_fn)
    texts = {s["name"][6:]: s["size"] for s in elf_sections(path) if s["name"].startswith(".text.")}
    fn_opt = args[args.index("--function") + 1] if "--function" in args else None
    for loc in locs:
        label, frames = res[loc]
        m = re.match(r"^(.*?)(?:\+(0x[0-9a-fA-F]+|\d+))?$", loc)
        name, off = m[1], int(m[2], 0) if m[2] else 0
        if re.match(r"^0x[0-9a-fA-F]+$", loc):
            name, off = fn_opt, int(loc, 16)
        sym = resolve_symbol(path, name) if name else None
        want = []
        if sym is None or off >= texts.get(sym, 0):
            want = [("??", "??", 0)]
        else:
            want = frames_at(path, sym, off) or [(sym, "??", 0)]
            R.eq(f"{loc}: input shown", label, path)
        if "-i" not in args:
            want = want[:1]
        if "-C" in args:
            want = [(demangle(f) if f != "??" else f, p, n) for f, p, n in want]
        if not want_fn:
            want = [(None, p, n) for _, p, n in want]
        R.eq(f"{loc}: frames", frames, want)


def parse_dump_info(text):
    units, dies, cur = [], [], None
    for line in text.splitlines():
        m = re.match(r"^  Compilation Unit @ offset 0x([0-9a-f]+):", line)
        if m:
            units.append(dict(offset=int(m[1], 16)))
            continue
        m = re.match(r"^   (Length|Version|Abbrev Offset|Pointer Size):\s+(0x[0-9a-f]+|\d+)", line)
        if m and units:
            units[-1][{"Length": "length", "Version": "version", "Abbrev Offset": "abbr",
                       "Pointer Size": "addr_size"}[m[1]]] = int(m[2], 0)
            continue
        m = re.match(r"^ <(\d+)><([0-9a-f]+)>: Abbrev Number: (\d+)(?: \((0x[0-9a-f]+) (DW_TAG_\w+)\))?", line)
        if m:
            cur = None
            if m[3] != "0":
                cur = dict(offset=int(m[2], 16), depth=int(m[1]), tag=m[5], tagcode=int(m[4], 16), attrs=[],
                           code=int(m[3]))
                dies.append(cur)
            continue
        m = re.match(r"^    <([0-9a-f]+)>\s+(DW_AT_\w+)\s*: ?(.*)$", line)
        if m and cur is not None:
            cur["attrs"].append((m[2], m[3]))
            cur.setdefault("at", []).append(int(m[1], 16))
    return units, dies


def expr_ops(text, llvm):
    """DW_OP operations with their operands: ours "(DW_OP_a: 1; DW_OP_b)", llvm's "DW_OP_a 1, DW_OP_b"."""
    if not llvm:
        m = re.search(r"\((DW_OP_.*)\)$", text)
        if not m:
            return None
        text = m[1].replace(";", ",").replace(": ", " ")
    ops = []
    for part in text.split(","):
        toks = part.split()
        if not toks or not toks[0].startswith("DW_OP"):
            return None
        args = [t if t.startswith("%") else num(t) for t in toks[1:]]
        ops.append((toks[0], args))
    return ops


def same_ops(ours, ref):
    o, r = expr_ops(ours, False), expr_ops(ref, True)
    if o is None or r is None or len(o) != len(r):
        return None if o is None or r is None else False
    for (on, oa), (rn, ra) in zip(o, r):
        # NVIDIA's register names: llvm's number is the name's bytes ("%r6" = 0x257236)
        ra = [x.to_bytes((x.bit_length() + 7) // 8, "big").decode("latin-1")
              if isinstance(y, str) and isinstance(x, int) else x for x, y in zip(ra, oa)]
        if on != rn or oa != ra:
            return False
    return True


def same_attr(name, ours, ref, files=None):
    """True/False, or None where the two print a value too differently to compare."""
    if name in ("DW_AT_decl_file", "DW_AT_call_file"):  # llvm prints the line table's path
        if not files:
            return None
        f = files.get(num(ours))
        return f is not None and (ref.strip('"').endswith("/" + f) or ref.strip('"') == f)
    if ref.startswith('"'):
        return ours == ref[1:-1] if ref.endswith('"') else None
    if ref.startswith("DW_OP"):
        return same_ops(ours, ref)
    if ref.startswith("DW_") or ours.endswith(")") and dw_names(ours):
        r, o = dw_names(ref), dw_names(ours)
        return r == o if r and o else None
    if ref.startswith("<0x"):  # a raw block: its bytes
        rb = [int(b, 16) for b in ref.split()[1:]]
        ob = re.match(r"^\d+ byte block: ([0-9a-f ]+)", ours)
        return [int(b, 16) for b in ob[1].split()] == rb if ob else None
    r, o = num(ref), num(ours)
    if r is None or o is None:
        return None
    return (r & 0xFFFFFFFFFFFFFFFF) == (o & 0xFFFFFFFFFFFFFFFF)


def check_dies(case, text, R):
    """DIEs against llvm-dwarfdump --debug-info on the relocated copy."""
    path = case.input
    sec = case.args[case.args.index("--section") + 1] if "--section" in case.args else ".debug_info"
    copy = prepped(path, "-r", "-e", "-x", *(["-m"] if sec.startswith(".nv.merc.") else []))
    ref_units, ref = llvm_dies(copy)
    files = llvm_line_files(copy)
    data = section_bytes(copy, ".debug_info")
    relocs = {o: (sym, add) for o, sym, add in elf_relocs(path).get(".rela" + sec, [])} \
        if not sec.startswith(".nv.merc.") else None  # readelf does not show the twins' relocations
    units, ours = parse_dump_info(text)
    R.eq("units", len(units), len(ref_units))
    for u, r in zip(units, ref_units):
        for k in ("offset", "length", "version", "abbr", "addr_size"):
            R.eq(f"unit 0x{r['offset']:x} {k}", u.get(k), r[k])
    R.eq("DIEs", len(ours), len(ref))
    skipped = 0
    for o, r in zip(ours, ref):
        w = f"DIE 0x{r['offset']:x}"
        R.eq(f"{w} offset", o["offset"], r["offset"])
        R.eq(f"{w} tag", o["tag"], r["tag"])
        R.eq(f"{w} depth", o["depth"], r["depth"])
        code_of(R, w, o["tag"], o["tagcode"])
        R.eq(f"{w} abbreviation", o["code"], r["code"])
        R.eq(f"{w} attributes", [n for n, _ in o["attrs"]], [n for n, _ in r["attrs"]])
        # each attribute's offset, and a block's bytes, from the section's bytes and llvm's forms
        pos = o["offset"] + uleb(data, o["offset"])[1]
        asz = next((u["addr_size"] for u in reversed(ref_units) if u["offset"] <= o["offset"]), 8)
        for at, (n, ov), form in zip(o.get("at", []), o["attrs"], r["forms"]):
            R.eq(f"{w} {n} offset", at, pos)
            size, block = form_span(form, data, pos, asz)
            if block is not None:
                b = re.match(r"^(\d+) byte block: ([0-9a-f ]*?)(?: \(|$)", ov)
                R.eq(f"{w} {n} block", (int(b[1]), [int(x, 16) for x in b[2].split()]) if b else ov,
                     (len(block), list(block)))
            if relocs is not None and form == "DW_FORM_addr":  # "0xe0 (SYMBOL+0xe0)": readelf -r's entry
                sm = re.search(r" \((\S+?)(?:\+0x([0-9a-f]+))?\)$", ov)
                R.eq(f"{w} {n} relocation", (sm[1], int(sm[2] or "0", 16)) if sm else None, relocs.get(pos))
            pos += size
        for (n, ov), (_, rv) in zip(o["attrs"], r["attrs"]):
            s = same_attr(n, ov, rv, files)
            if s is None:
                skipped += 1
            else:
                R.eq(f"{w} {n}", ov if not s else rv, rv)
    if skipped > len(ours):
        R.fail(f"{skipped} attribute values not compared: more than one a DIE")


def check_abbrev(case, text, R):
    """Abbreviation tables against llvm-dwarfdump --debug-abbrev."""
    ref, cur = [], None
    for line in tool("llvm-dwarfdump", "--debug-abbrev", case.input).splitlines():
        m = re.match(r"^\[(\d+)\] (DW_TAG_\w+)\s+DW_CHILDREN_(yes|no)", line)
        if m:
            cur = [int(m[1]), m[2], m[3] == "yes", []]
            ref.append(cur)
            continue
        m = re.match(r"^\t(DW_AT_\w+)\t(DW_FORM_\w+)", line)
        if m:
            cur[3].append((m[1], m[2]))
    ours = []
    for line in text.splitlines():
        m = re.match(r"^\s+(\d+)\s+(0x[0-9a-f]+) (DW_TAG_\w+)\s+\[(has|no) children\]", line)
        if m:
            cur = [int(m[1]), m[3], m[4] == "has", []]
            ours.append(cur)
            code_of(R, f"abbrev {m[1]}", m[3], int(m[2], 16))
            continue
        m = re.match(r"^\s+(DW_AT_\w+)\((0x[0-9a-f]+)\)\s+(DW_FORM_\w+)\((0x[0-9a-f]+)\)", line)
        if m:
            cur[3].append((m[1], m[3]))
            code_of(R, f"abbrev {cur[0]}", m[1], int(m[2], 16))
            code_of(R, f"abbrev {cur[0]}", m[3], int(m[4], 16))
    tables = re.findall(r"^  Number TAG \((0x[0-9a-f]+)\)", text, re.M)
    R.eq("table offsets", [int(x, 16) for x in tables],
         [int(x, 16) for x in re.findall(r"^Abbrev table for offset: (0x[0-9a-f]+)",
                                         tool("llvm-dwarfdump", "--debug-abbrev", case.input), re.M)])
    R.eq("abbreviations", len(ours), len(ref))
    for o, r in zip(ours, ref):
        R.eq(f"abbrev {r[0]}", o, r)


def llvm_line_op(s):
    """An opcode as llvm-dwarfdump -v prints it -> (name, operands...)."""
    m = re.match(r"^(DW_LN[ES]_\w+)(?: \((-?0x[0-9a-f]+|-?\d+)\))?$", s)
    if m:
        return (m[1],) + ((int(m[2], 0),) if m[2] else ())
    m = re.match(r"^Unrecognized extended op (0x[0-9a-f]+)", s)
    if m:
        return ("extended", int(m[1], 16))
    m = re.match(r"^address \+= (\d+),\s+line \+= (-?\d+)", s)
    if m:
        return ("special", int(m[1]), int(m[2]))
    return (s,)


def our_line_op(s):
    """A statement of `dump --line` in llvm_line_op's terms (llvm prints advance_line's new line)."""
    for pat, f in ((r"^Extended opcode \d+ \(0x[0-9a-f]+ DW_LNE_set_address\): set Address to (0x[0-9a-f]+)",
                    lambda m: ("DW_LNE_set_address", int(m[1], 16))),
                   (r"^Extended opcode \d+ \(0x[0-9a-f]+ (DW_LNE_end_sequence|DW_LNE_set_discriminator)\)",
                    lambda m: (m[1],)),
                   (r"^Extended opcode \d+ \((0x[0-9a-f]+) DW_LNE_NVIDIA_", lambda m: ("extended", int(m[1], 16))),
                   (r"^Set File Name to entry (\d+)", lambda m: ("DW_LNS_set_file", int(m[1]))),
                   (r"^Advance Line by -?\d+ to (\d+)", lambda m: ("DW_LNS_advance_line", int(m[1]))),
                   (r"^Advance PC by constant", lambda m: ("DW_LNS_const_add_pc",)),
                   (r"^Advance PC by (\d+) to", lambda m: ("DW_LNS_advance_pc", int(m[1]))),
                   (r"^Copy$", lambda m: ("DW_LNS_copy",)),
                   (r"^Set column to (\d+)", lambda m: ("DW_LNS_set_column", int(m[1]))),
                   (r"^Special opcode \d+: advance Address by (\d+) to 0x[0-9a-f]+ and Line by (-?\d+)",
                    lambda m: ("special", int(m[1]), int(m[2])))):
        m = re.match(pat, s)
        if m:
            return f(m)
    return (s,)


def check_line_program(case, text, R):
    """The header and the rows the statements make against llvm-dwarfdump --debug-line."""
    path = case.input
    sec = case.args[case.args.index("--section") + 1] if "--section" in case.args else ".debug_line"
    flags = ["-m"] if sec.startswith(".nv.merc.") else []
    if sec.endswith("nv_debug_line_sass"):
        flags += ["-s", ".nv_debug_line_sass"]
    out = tool("llvm-dwarfdump", "-v", "--debug-line", prepped(path, "-r", "-e", "-x", *flags))
    ref, t = [], None
    for line in out.splitlines():
        if line.startswith("debug_line[0x"):
            t = dict(offset=int(line[11:21], 16), hdr={}, ops=[], dirs=[], files=[], rows=[], stmts=[])
            ref.append(t)
            continue
        m = re.match(r"^0x([0-9a-f]{8}): [0-9a-f]{2} (.*)$", line)
        if m and t:
            t["stmts"].append((int(m[1], 16),) + llvm_line_op(m[2]))
            continue
        m = re.match(r"^\s*(total_length|version|prologue_length|min_inst_length|default_is_stmt|line_base|"
                     r"line_range|opcode_base): (\S+)", line)
        if m and t:
            t["hdr"][m[1]] = int(m[2], 0)
            continue
        m = re.match(r"^standard_opcode_lengths\[\w+\] = (\d+)", line)
        if m:
            t["ops"].append(int(m[1]))
            continue
        m = re.match(r'^include_directories\[\s*\d+\] = "(.*)"', line)
        if m:
            t["dirs"].append(m[1])
            continue
        m = re.match(r"^\s+(name|dir_index|mod_time|length): (.*)$", line)
        if m:
            if m[1] == "name":
                t["files"].append([m[2].strip('"')])
            else:
                t["files"][-1].append(int(m[2], 0))
            continue
        m = re.match(r"^\s*0x([0-9a-f]{16})\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s*(.*)$", line)
        if m:
            t["rows"].append((int(m[1], 16), int(m[2]), int(m[4]), "end_sequence" in m[5]))
    ours, t, state = [], None, None
    keys = {"Offset": "offset", "Length": "total_length", "DWARF Version": "version",
            "Prologue Length": "prologue_length", "Minimum Instruction Length": "min_inst_length",
            "Initial value of 'is_stmt'": "default_is_stmt", "Line Base": "line_base",
            "Line Range": "line_range", "Opcode Base": "opcode_base"}
    part = None
    for line in text.splitlines():
        m = re.match(r"^  ([^:\[]+):\s+(-?0x[0-9a-f]+|-?\d+)$", line)
        if m and m[1] in keys:
            if m[1] == "Offset":
                t = dict(offset=int(m[2], 0), hdr={}, ops=[], dirs=[], files=[], rows=[], stmts=[])
                ours.append(t)
                state = [0, 1, 1]
            else:
                t["hdr"][keys[m[1]]] = int(m[2], 0)
            continue
        m = re.match(r"^  Opcode \d+ has (\d+) args?", line)
        if m:
            t["ops"].append(int(m[1]))
            continue
        if line.startswith(" The Directory Table") or line.startswith(" The File Name Table") or \
                line.startswith(" Line Number Statements"):
            part = line.split()[1]
            continue
        if part == "Directory":
            m = re.match(r"^  \d+\t(.*)$", line)
            if m:
                t["dirs"].append(m[1])
        elif part == "File":
            m = re.match(r"^  \d+\t(\d+)\t(\d+)\t(\d+)\t(.*)$", line)
            if m:
                t["files"].append([m[4], int(m[1]), int(m[2]), int(m[3])])
        elif part == "Number":
            m = re.match(r"^  \[0x([0-9a-f]+)\]  (.*)$", line)
            if not m:
                continue
            s = m[2]
            t["stmts"].append((int(m[1], 16),) + our_line_op(s))
            a = re.search(r"(?:set Address|Advance PC|advance Address)\D.*?to 0x([0-9a-f]+)", s)
            if a:
                state[0] = int(a[1], 16)
            ln = re.search(r"(?:Advance Line|Line) by -?\d+ to (\d+)", s)
            if ln:
                state[2] = int(ln[1])
            f = re.match(r"^Set File Name to entry (\d+)", s)
            if f:
                state[1] = int(f[1])
            if s == "Copy" or s.startswith("Special opcode"):
                t["rows"].append((state[0], state[2], state[1], False))
            if "End of Sequence" in s:
                t["rows"].append((state[0], state[2], state[1], True))
                state = [0, 1, 1]
    R.eq("tables", len(ours), len(ref))
    for o, r in zip(ours, ref):
        w = f"table 0x{r['offset']:x}"
        R.eq(f"{w} offset", o["offset"], r["offset"])
        for k, v in r["hdr"].items():
            R.eq(f"{w} {k}", o["hdr"].get(k), v)
        R.eq(f"{w} standard opcode lengths", o["ops"], r["ops"])
        R.eq(f"{w} directories", o["dirs"], r["dirs"])
        R.eq(f"{w} files", o["files"], r["files"])
        R.eq(f"{w} statements", len(o["stmts"]), len(r["stmts"]))
        for a, b in zip(o["stmts"], r["stmts"]):
            R.eq(f"{w} statement at 0x{b[0]:x}", a, b)
        R.eq(f"{w} rows", len(o["rows"]), len(r["rows"]))
        for k, (a, b) in enumerate(zip(o["rows"], r["rows"])):
            # an end_sequence row keeps the line of the row before it
            R.eq(f"{w} row {k}", a if not a[3] else (a[0], b[1], b[2], True), b)


def cfa_args(text, llvm):
    """A call-frame instruction's operands: registers as R<n>/RZ (llvm's reg<0x5000000 + n>), numbers;
    llvm's N*code_alignment_factor as ("caf", N)."""
    out = []
    text = re.sub(r"\(to 0x[0-9a-f]+\)", "", text)
    for tok in text.replace(",", " ").split():
        m = re.match(r"^reg(\d+)$", tok)
        if llvm and m:
            n = int(m[1]) - 0x5000000
            out.append("RZ" if n == 0xFF else f"R{n}" if 0 <= n < 0xFF else None)
        elif re.match(r"^(R\d+|RZ)$", tok):
            out.append(tok)
        elif re.match(r"^-?\d+\*code_alignment_factor$", tok):
            out.append(("caf", int(tok.split("*")[0])))
        elif re.match(r"^[+-]?\d+$", tok):
            out.append(int(tok))
        else:
            out.append(tok)
    return out


def check_frames(case, text, R):
    """CIEs and FDEs against llvm-dwarfdump --debug-frame on the relocated copy."""
    path = case.input
    flags = ["-m"] if "--section" in case.args and case.args[case.args.index("--section") + 1].startswith(
        ".nv.merc.") else []
    hdr = re.compile(r"^([0-9a-f]{8}) ([0-9a-f]+) ([0-9a-f]+) (CIE|FDE)(?: cie=(<invalid offset>|\S+) pc=([0-9a-f]+)\.\.\.([0-9a-f]+))?")

    def parse(t, llvm):
        ents, cur = [], None
        for line in t.splitlines():
            m = hdr.match(line)
            if m:
                cur = dict(offset=int(m[1], 16), length=int(m[2], 16), pointer=int(m[3], 16), kind=m[4],
                           pc=(int(m[6], 16), int(m[7], 16)) if m[6] else None, fields={}, ops=[], rows=[],
                           args=[], cie=int(m[5], 16) if m[5] and m[5][0] != "<" else None)
                cur["cie_field"] = cur["cie"]
                ents.append(cur)
                continue
            if cur is None:
                continue
            m = re.match(r"^\s+(Version|Code alignment factor|Data alignment factor|Return address column):"
                         r"\s+(-?\d+)", line)
            if m:
                cur["fields"][m[1]] = int(m[2]) & 0xFFFFFFFF
                continue
            m = re.match(r"^  (DW_CFA_\w+):(.*)$", line)
            if m:
                cur["ops"].append(m[1])
                cur.setdefault("to", []).extend(int(x, 16) for x in re.findall(r"\(to 0x([0-9a-f]+)\)", m[2]))
                cur["args"].append(cfa_args(m[2], llvm))
                continue
            m = re.match(r"^  \(no CIE at 0x[0-9a-f]+: using the CIE before the FDE, at 0x([0-9a-f]+)\)", line)
            if m:
                cur["cie"] = int(m[1], 16)
            m = re.match(r"^  0x([0-9a-f]+): CFA=\S*?([+-]\d+)?(?::|$)", line)
            if m and cur["kind"] == "FDE":
                cur["rows"].append((int(m[1], 16), int(m[2] or 0)))
        return ents

    ref = parse(tool("llvm-dwarfdump", "--debug-frame", prepped(path, "-r", "-e", "-x", *flags)), True)
    ours = parse(text, False)
    R.eq("entries", len(ours), len(ref))
    cies = {e["offset"]: e for e in ref if e["kind"] == "CIE"}
    for o, r in zip(ours, ref):
        w = f"{r['kind']} 0x{r['offset']:x}"
        for k in ("offset", "length", "pointer", "kind", "pc", "fields", "ops"):
            R.eq(f"{w} {k}", o[k], r[k])
        if r["cie_field"] is not None:
            R.eq(f"{w} cie=", o["cie_field"], r["cie_field"])
        for op, a, b in zip(r["ops"], o["args"], r["args"]):
            if any(x is None for x in b):
                continue  # a register llvm numbers outside R0..RZ
            # llvm leaves advances unscaled where it finds no CIE: ours scale by the one they name
            caf = cies.get(o["cie"], {}).get("fields", {}).get("Code alignment factor")
            b = [x[1] * caf if isinstance(x, tuple) and caf else x for x in b]
            R.eq(f"{w} {op} operands", a, b)
        if r["rows"]:  # llvm makes no rows for an FDE whose CIE pointer misses
            R.eq(f"{w} rows", o["rows"], r["rows"])
            for a in o.get("to", []):  # "advance_loc: N (to 0xA)": a row of llvm's at A
                R.eq(f"{w} advance to 0x{a:x} starts a row", a in [x for x, _ in r["rows"]], True)


def check_pubnames(case, text, R):
    """Name sets against llvm-dwarfdump --debug-pubnames (twins: on a cubin_prep -m copy)."""
    def sets(t, llvm):
        res, cur = [], None
        for line in t.splitlines():
            m = re.match(r"^\s*length (?:= )?0x([0-9a-f]+),.*version (?:= )?(?:0x)?0*(\d+), unit.offset (?:= )?"
                         r"0x([0-9a-f]+), unit.size (?:= )?0x([0-9a-f]+)", line)
            if m:
                cur = [int(m[1], 16), int(m[2]), int(m[3], 16), int(m[4], 16), []]
                res.append(cur)
                continue
            m = re.match(r'^\s*0x([0-9a-f]+) "(.*)"$', line)
            if m and cur:
                cur[4].append((int(m[1], 16), m[2]))
        return res
    views = re.findall(r"^Contents of the (\S+) section:", text, re.M)
    chunks = re.split(r"^Contents of the \S+ section:", text, flags=re.M)[1:]
    R.eq("sections", sorted(views), sorted(v for v in (".debug_pubnames", ".nv.merc.debug_pubnames")
                                           if any(s["name"] == v for s in elf_sections(case.input))))
    for v, chunk in zip(views, chunks):
        p = prepped(case.input, "-m") if v.startswith(".nv.merc.") else case.input
        R.eq(v, sets(chunk, False), sets(tool("llvm-dwarfdump", "--debug-pubnames", p), True))


def check_str(case, text, R):
    """.debug_str entries against readelf -p."""
    pat = re.compile(r"^  \[\s*([0-9a-f]+)\]  (.*)$", re.M)
    ref = [(int(a, 16), s) for a, s in pat.findall(tool("readelf", "-p", ".debug_str", case.input))]
    ours = [(int(a, 16), s) for a, s in pat.findall(text)]
    R.eq("strings", len(ours), len(ref))
    for o, r in zip(ours, ref):
        R.eq(f"string at 0x{r[0]:x}", o, r)
