"""The golden checks of the ELF and container views: sections, size, resources,
correlate, list, each against its reference tool (tests/golden/README.md).
check_X(case, text, R): parse the golden text, run the reference,
R.eq(what, golden's value, reference's value)."""
import os
import re
import shutil
import subprocess
import tempfile

from golden_refs import (CUDWARF, Unavailable, demangle, elf_sections, frames_at, image_key, label_key,
                         libdw_tables, section_bytes, seq_symbols, tmpdir, tool)


def check_sections(case, text, R):
    """The section table against readelf -h / -S -W."""
    path = case.input
    h = tool("readelf", "-h", "-W", path)
    m = re.search(r"ELF type (\w+), machine (\d+) \(\S+\), (sm_\w+), e_flags (0x[0-9a-f]+), (\d+) sections", text)
    R.eq("ELF type", m[1], re.search(r"Type:\s+(\w+)", h)[1])
    mach = re.search(r"Machine:\s+(.*)", h)[1].strip()
    R.eq("machine", int(m[2]), {"NVIDIA CUDA architecture": 190}.get(mach, mach))
    R.eq("e_flags", int(m[4], 16), int(re.search(r"Flags:\s+(0x[0-9a-f]+)", h)[1], 16))
    R.eq("sections", int(m[5]), int(re.search(r"Number of section headers:\s+(\d+)", h)[1]))
    secs = {s["idx"]: s for s in elf_sections(path)}
    by_name = {s["name"]: s for s in secs.values()}
    rels = {}
    for s in secs.values():
        if s["type"] in ("RELA", "REL") or s["name"].startswith(".nv.merc.rel"):
            rels[s["info"]] = rels.get(s["info"], 0) + (s["size"] // s["es"] if s["es"] else 0)
    lines = text.splitlines()
    head = next(l for l in lines if l.startswith("  [Nr] Name"))
    c_rels, c_twin = head.index("Rels"), head.index("Twin")
    seen = 0
    for line in lines:
        m = re.match(r"^  \[\s*(\d+)\] (\S+)\s+(\S+)\s+([0-9a-f]{8})\s+([0-9a-f]{8})\s", line)
        if not m:
            continue
        seen += 1
        i, s = int(m[1]), secs.get(int(m[1]))
        if s is None:
            R.fail(f"[{i}] {m[2]}: readelf has no section {i}")
            continue
        w = f"[{i}] {m[2]}"
        R.eq(f"{w} name", m[2], s["name"])
        t, rt = m[3], s["type"]
        if t.startswith("LOPROC+") and rt.startswith("LOPROC+"):
            t, rt = int(t[7:], 16), int(rt[7:], 16)
        R.eq(f"{w} type", t, rt)
        R.eq(f"{w} offset", int(m[4], 16), s["off"])
        R.eq(f"{w} size", int(m[5], 16), s["size"])
        fl = int(line[head.index("Flags"):head.index("Family")].strip(), 16)
        R.eq(f"{w} flags", elf_flag_letters(fl), "".join(sorted(s["flags"])))
        nrel = line[c_rels:c_twin].strip()
        if nrel not in ("", "-"):
            R.eq(f"{w} relocations", int(nrel), rels.get(i, 0))
        tw = re.match(r"\[\s*(\d+)\]( aliased)?", line[c_twin:].strip())
        other = s["name"][8:] if s["name"].startswith(".nv.merc.") else ".nv.merc" + s["name"]
        o = by_name.get(other)
        if tw:
            R.eq(f"{w} twin", int(tw[1]), o["idx"] if o else None)
            if o:
                R.eq(f"{w} aliased", bool(tw[2]), (o["off"], o["size"]) == (s["off"], s["size"]))
        elif o and re.match(r"^(\.nv\.merc)?\.(debug|nv_debug)_", s["name"]):
            R.fail(f"{w}: no twin shown, readelf has {other}")
    want = sum(1 for s in secs.values() if "--debug" not in case.args
               or re.match(r"^(\.nv\.merc)?\.(debug|nv_debug)_", s["name"]))
    R.eq("sections listed", seen, want)


def elf_flag_letters(v):
    """sh_flags as readelf -S's letters, sorted."""
    out = [c for bit, c in ((1, "W"), (2, "A"), (4, "X"), (0x10, "M"), (0x20, "S"), (0x40, "I"), (0x80, "L"),
                            (0x100, "O"), (0x200, "G"), (0x400, "T"), (0x800, "C"), (0x80000000, "E")) if v & bit]
    if v & 0x0ff00000:
        out.append("o")
    if v & 0x70000000:
        out.append("p")
    return "".join(sorted(out))


SIZE_LABELS = {"code": "code", "constant": "data", "DWARF": "debug", "NVIDIA": "nv_debug",
               "metadata": "metadata", "symbol": "symbols", "relocations": "relocations",
               "other": "other", "ELF": "headers", "PTX": "ptx"}


def elf_classes(path):
    """Bytes by docs/json.md's classes from readelf -S -W; aliased bytes once; headers: the rest."""
    c = dict.fromkeys(("code", "data", "debug", "nv_debug", "metadata", "symbols", "relocations", "other",
                       "headers"), 0)
    held = set()
    for s in elf_sections(path):
        if s["type"] in ("NOBITS", "LOPROC+0xa", "LOPROC+0x7") or not s["size"]:
            continue
        n = s["name"][8:] if s["name"].startswith(".nv.merc.") else s["name"]
        if n.startswith(".text.") or s["name"].startswith(".nv.capmerc.text."):
            k = "code"
        elif n.startswith(".debug_"):
            k = "debug"
        elif n.startswith(".nv_debug_"):
            k = "nv_debug"
        elif s["type"] in ("SYMTAB", "STRTAB", "DYNSYM", "LOPROC+0x85"):
            k = "symbols"
        elif s["type"] in ("REL", "RELA", "LOPROC+0x82"):
            k = "relocations"
        elif n.startswith(".nv.constant") or n == ".nv.global.init":
            k = "data"
        elif n.startswith(".nv.") or s["type"] == "NOTE" or n.startswith(".note"):
            k = "metadata"
        else:
            k = "other"
        new = set(range(s["off"], s["off"] + s["size"])) - held
        held |= new
        c[k] += len(new)
    c["headers"] = os.path.getsize(path) - len(held)
    return c


def check_size(case, text, R):
    """The classes against readelf's sums (a fatbin: over the images cudwarf extract writes)."""
    path = case.input
    ours, total, pct = {}, {}, {}
    for line in text.splitlines():
        m = re.match(r"^\s+(-?[\d,]+)\s+([\d.]+)%\s+(\S+)", line)
        if m and m[3] in SIZE_LABELS:
            ours[SIZE_LABELS[m[3]]] = int(m[1].replace(",", ""))
            pct[SIZE_LABELS[m[3]]] = m[2]
        m = re.match(r"^\s+([\d,]+)\s+(?:[\d.]+%\s+)?(the file|the containers|the images, unpacked)$", line)
        if m:
            total[m[2]] = int(m[1].replace(",", ""))
    with open(path, "rb") as f:
        elf = f.read(4) == b"\x7fELF"
    if elf and any(s["name"].startswith(".text.") for s in elf_sections(path)):
        want = elf_classes(path)
        R.eq("the file", total.get("the file"), os.path.getsize(path))
        images = {"": path}
    else:
        d = tempfile.mkdtemp(dir=tmpdir())
        p = subprocess.run([CUDWARF, "extract", "-o", d, path], capture_output=True, text=True)
        if p.returncode:
            raise Unavailable(f"cudwarf extract: {p.stderr.strip()}")
        want = dict.fromkeys(("code", "data", "debug", "nv_debug", "metadata", "symbols", "relocations",
                              "other", "headers", "ptx"), 0)
        for f in sorted(os.listdir(d)):
            fp = os.path.join(d, f)
            if f.endswith(".ptx"):
                want["ptx"] += os.path.getsize(fp)
            elif f.endswith(".cubin"):
                for k, v in elf_classes(fp).items():
                    want[k] += v
        R.eq("the images, unpacked", total.get("the images, unpacked"),
             sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)))
        R.eq("the containers", total.get("the containers"), os.path.getsize(path))
        images = {image_key(f): os.path.join(d, f) for f in os.listdir(d) if f.endswith(".cubin")}
    whole = sum(want.values())
    for k, v in want.items():
        R.eq(k, ours.get(k, 0), v)
        if k in pct:
            R.eq(f"{k} %", pct[k], f"{100 * v / whole:.1f}")
    # duplicate kernels: the .text.NAME sections (readelf -S) with the same bytes in several images
    code = {}
    for key, f in images.items():
        for sec in elf_sections(f):
            if sec["name"].startswith(".text.") and sec["type"] != "NOBITS":
                code.setdefault(section_bytes(f, sec["name"]), []).append((sec["name"][6:], key))
    sets = sorted(((len(b), sorted(w)) for b, w in code.items() if len(w) > 1), key=lambda x: (-x[0], x[1]))
    m = re.search(r"^duplicate kernels: (?:none|(\d+) sets? of identical bytes, ([\d,]+) bytes in the extra copies)$",
                  text, re.M)
    R.eq("duplicate kernel sets", int(m[1] or 0), len(sets))
    R.eq("duplicate kernel bytes", int((m[2] or "0").replace(",", "")), sum(n * (len(w) - 1) for n, w in sets))
    rows = re.findall(r"^ +([\d,]+) +(\d+) x ([\d,]+) +(.*)$", text.split("duplicate kernels:", 1)[1], re.M)
    ours_sets = [(num(n), sorted((x.split(" in ", 1)[0], label_key(x.split(" in ", 1)[1])) for x in w.split(", ")))
                 for extra, c, n, w in rows]
    R.eq("duplicate kernels", sorted(ours_sets, key=lambda x: (-x[0], x[1])), sets)
    R.eq("duplicate kernels' extra bytes", [num(extra) for extra, c, n, w in rows],
         [num(n) * (int(c) - 1) for extra, c, n, w in rows])


def num(s):
    """ "1,234" as 1234 """
    return int(s.replace(",", ""))


def parse_resources(text):
    """{(image key, sm): {name: {kind, registers, barriers, shared_bytes, stack_bytes, cumulative_stack_bytes,
    cmem0}}}"""
    res, cur = {}, None
    for line in text.splitlines():
        # "FILE (sm_90): N functions", or "FILE[...: ELF sm_90 ...]: N functions" (the label says the SM)
        m = re.match(r"^(\S.*) \(sm_(\w+)\): \d+ functions?", line) or \
            re.match(r"^(\S.*\[[^]]*\bsm_(\w+)\b[^]]*\]): \d+ functions?", line)
        if m:
            cur = res.setdefault((label_key(m[1]), m[2]), {})
            continue
        m = re.match(r"^  (kernel|function)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+\S+\s+\S+\s+\S+\s+(.+)$",
                     line)
        if m and cur is not None:
            v = [None if x == "-" else int(x) for x in m.group(2, 3, 4, 5, 6, 7)]
            cur[m[8]] = dict(zip(("registers", "barriers", "shared_bytes", "stack_bytes",
                                  "cumulative_stack_bytes", "cmem0"), v), kind=m[1])
    return res


def ptxas_v(ptx, sm):
    """ptxas -v's figures per function: {name: {registers, barriers, shared_bytes, stack_bytes, cumulative}}."""
    with open(ptx, errors="replace") as f:
        src = f.read()
    flags = ["-g"] if re.search(r"^\s*\.target\s+\S+,\s*debug", src, re.M) else []
    if re.search(r"\.extern\s+\.func", src) or ".rdc." in os.path.basename(ptx):
        flags.append("-c")
    if not shutil.which("ptxas"):
        raise Unavailable("ptxas not found")
    p = subprocess.run(["ptxas", "-v", f"-arch=sm_{sm}", *flags, ptx, "-o", os.path.join(tmpdir(), "ptxas.cubin")],
                       capture_output=True, text=True)
    if p.returncode:
        raise Unavailable(f"ptxas {os.path.basename(ptx)}: {p.stderr.strip()[:300]}")
    out = p.stdout + p.stderr
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.search(r"(?:Compiling entry function|Function properties for) '?([^' ]+)'?", line)
        if m:
            cur = funcs.setdefault(m[1], {})
            continue
        m = re.search(r"(\d+) bytes stack frame", line)
        if m and cur is not None:
            cur["stack_bytes"] = int(m[1])
        m = re.search(r"Used (\d+) registers, used (\d+) barriers", line)
        if m and cur is not None:
            cur["registers"], cur["barriers"] = int(m[1]), int(m[2])
            s = re.search(r"(\d+) bytes smem", line)
            cur["shared_bytes"] = int(s[1]) if s else 0
            c = re.search(r"(\d+) bytes cumulative stack size", line)
            if c:
                cur["cumulative_stack_bytes"] = int(c[1])
    return funcs


def check_resources(case, text, R):
    """Each function ptxas -v reports, rebuilt from the image's PTX (where the PTX is at hand: a stage1
    cubin's .ptx beside it, a fatbin's PTX entry); each kernel's cmem0 against readelf -S's
    .nv.constant0.KERNEL."""
    path = case.input
    ours = parse_resources(text)
    with open(path, "rb") as f:
        elf = f.read(4) == b"\x7fELF"
    if elf and any(s["name"].startswith(".text.") for s in elf_sections(path)):
        images = {"": path}
        stem = re.sub(r"(\.O\d)?\.cubin$", "", path)
        ptxs = [(stem + ".ptx", "")] if os.path.exists(stem + ".ptx") else []
    else:
        d = tempfile.mkdtemp(dir=tmpdir())
        subprocess.run([CUDWARF, "extract", "-o", d, path], capture_output=True, check=True)
        images = {image_key(f): os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".cubin")}
        ptxs = [(os.path.join(d, f), None) for f in sorted(os.listdir(d)) if f.endswith(".ptx")]
    for (key, sm), funcs in ours.items():
        img = images.get(key)
        if img is None:
            R.fail(f"[{key}] sm_{sm}: no such image")
            continue
        consts = {s["name"][14:]: s["size"] for s in elf_sections(img) if s["name"].startswith(".nv.constant0.")}
        if "-C" in case.args:
            consts = {demangle(k): v for k, v in consts.items()}
        for fn, figs in funcs.items():
            if figs["kind"] == "kernel":
                R.eq(f"sm_{sm} {fn} cmem0", figs["cmem0"], consts.get(fn))
    if not ptxs:
        R.note(f"ptxas -v not compared: no PTX for {path}")
    for ptx, key in ptxs:
        with open(ptx, errors="replace") as f:
            sm = re.search(r"^\s*\.target\s+sm_(\w+)", f.read(), re.M)[1]
        # the image built from it: a cubin's own; a fatbin's ELF entry of the PTX's SM
        got = [v for (k, s_), v in ours.items() if s_ == sm and (key is None or k == key)]
        if len(got) != 1:
            R.fail(f"{len(got)} sm_{sm} images in the golden for {os.path.basename(ptx)}")
            continue
        for fn, figs in ptxas_v(ptx, sm).items():
            fn = demangle(fn) if "-C" in case.args else fn
            if fn not in got[0]:
                R.fail(f"sm_{sm} {fn}: ptxas reports it, the golden lists no such function")
                continue
            for k, v in figs.items():
                R.eq(f"sm_{sm} {fn} {k}", got[0][fn][k], v)


def check_correlate(case, text, R):
    """SASS bytes per source line, file and function, exclusive and with inlined callees, and per
    call site, recomputed from libdw's rows (the inline chains of frames_at) and readelf's .text sizes."""
    path = case.input
    m = re.search(r"^\S+ \(sm_\w+\): ([\d,]+) SASS instructions, ([\d,]+) bytes$", text, re.M)
    n_insns, n_bytes = int(m[1].replace(",", "")), int(m[2].replace(",", ""))
    texts = {s["name"][6:]: s["size"] for s in elf_sections(path) if s["name"].startswith(".text.")}
    total = sum(texts.values())
    R.eq("SASS bytes", n_bytes, total)
    R.eq("SASS instructions", n_insns, total // 16)
    caps = sum(s["size"] for s in elf_sections(path) if s["name"].startswith(".nv.capmerc.text."))
    m = re.search(r"^  \+ ([\d,]+) bytes of Mercury capsules", text, re.M)
    R.eq("Mercury capsule bytes", int(m[1].replace(",", "")) if m else 0, caps)
    syms = seq_symbols(path, ".debug_line")
    excl = {"line": {}, "file": {}, "function": {}}
    incl = {"line": {}, "file": {}, "function": {}}
    sites = {}  # (file, line) -> {(caller file's base name, line, caller): bytes}

    def add(d, k, b):
        d[k] = d.get(k, 0) + b

    covered, in_fn = 0, {}
    for table in libdw_tables(path, ".debug_line"):
        for r, n in zip(table, table[1:]):
            if r.end or n.seq != r.seq or n.addr == r.addr:
                continue  # the last row at an address is the one that counts
            b, sym = n.addr - r.addr, syms[r.seq]
            covered += b
            add(in_fn, sym, b)
            fr = frames_at(path, sym, r.addr)
            fn, f, ln = fr[0]
            add(excl["line"], (f, ln), b)
            add(excl["file"], f, b)
            add(excl["function"], fn, b)
            for k, keys in (("line", {(x[1], x[2]) for x in fr}), ("file", {x[1] for x in fr}),
                            ("function", {x[0] for x in fr})):
                for key in keys:
                    add(incl[k], key, b)
            if len(fr) > 1:
                add(sites.setdefault((f, ln), {}), (os.path.basename(fr[1][1]), fr[1][2], fr[1][0]), b)
    nl = total - covered
    for d in (excl["line"], incl["line"]):
        d[("(no line)", None)] = nl
    for d in (excl["file"], incl["file"]):
        d["(no line)"] = nl
    for sym, size in texts.items():  # a function's bytes no row covers are still its own
        for d in (excl["function"], incl["function"]):
            add(d, sym, size - in_fn.get(sym, 0))
    R.eq("with a source line", int(re.search(r"^  ([\d,]+) with a source line", text, re.M)[1].replace(",", "")),
         covered // 16)
    part, key, seen = None, None, 0
    for line in text.splitlines():
        m = re.match(r"^  top \d+ (source lines|functions|files)", line)
        if m:
            part = {"source lines": "line", "functions": "function", "files": "file"}[m[1]]
            continue
        if part == "line":
            m = re.match(r"^\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+\S+\s+(?:(\(no line\))|(.*):(\d+))(?:  \S+)?$", line)
            if m:
                key = ("(no line)", None) if m[4] else (m[5], int(m[6]))
                ex, inc, ins = (int(x.replace(",", "")) for x in m.group(1, 2, 3))
                R.eq(f"bytes of {key[0]}:{key[1]}", ex, excl["line"].get(key))
                R.eq(f"bytes with inlined callees of {key[0]}:{key[1]}", inc, incl["line"].get(key))
                R.eq(f"instructions of {key[0]}:{key[1]}", ins, ex // 16)
                seen += 1
                continue
            m = re.match(r"^\s+([\d,]+) B inlined at (\S+):(\d+)  (\S+)$", line)
            if m and key:
                R.eq(f"bytes of {key[0]}:{key[1]} inlined at {m[2]}:{m[3]}", int(m[1].replace(",", "")),
                     sites.get(key, {}).get((m[2], int(m[3]), m[4])))
        elif part in ("function", "file"):
            m = re.match(r"^\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+\S+\s+(.*)$", line)
            if m:
                inc, ex, ins = (int(x.replace(",", "")) for x in m.group(1, 2, 3))
                R.eq(f"bytes of {part} {m[4]}", ex, excl[part].get(m[4]))
                R.eq(f"bytes with inlined callees of {part} {m[4]}", inc, incl[part].get(m[4]))
                R.eq(f"instructions of {part} {m[4]}", ins, ex // 16)
    if not seen:
        R.fail("no source line rows in the golden")


def check_list(case, text, R):
    """Containers tile the fatbin file or the host section they were found in (readelf -S)."""
    path = case.input
    m = re.match(r"^\S+: (fatbin|host ELF), (\d+) images .* in (\d+) containers?", text)
    conts = re.findall(r"^ container (\S+): at 0x([0-9a-f]+)(?: \(file offset 0x([0-9a-f]+)\))?, (\d+) bytes, "
                       r"(\d+) entries", text, re.M)
    entries = re.findall(r"^  \[[^\]]+\] (ELF|PTX|LTO)", text, re.M)
    R.eq("containers", len(conts), int(m[3]))
    R.eq("images", len(entries), int(m[2]))
    R.eq("entries", sum(int(c[4]) for c in conts), len(entries))
    if m[1] == "fatbin":
        spans = [(int(c[1], 16), int(c[3])) for c in conts]
        end = os.path.getsize(path)
    else:
        sec = re.match(r"^(\.\w+)", conts[0][0])[1]
        s = next(x for x in elf_sections(path) if x["name"] == sec)
        spans = [(int(c[2], 16), int(c[3])) for c in conts]
        R.eq("first container's file offset", spans[0][0], s["off"])
        for c in conts:
            R.eq(f"container {c[0]} file offset", int(c[2], 16), s["off"] + int(c[1], 16))
        end = s["off"] + s["size"]
    pos = spans[0][0]
    for off, size in spans:
        R.eq(f"container at 0x{off:x} follows the one before", off, pos)
        pos = off + size
    R.eq("the containers end where the file/section does", pos, end)
    # the entries tile their container: the 16-byte container header, then header + payload each
    for c in conts:
        block = text.split(f" container {c[0]}: ", 1)[1].split("\n container ", 1)[0]
        at = [(int(a, 16), int(h), int(p)) for a, h, p in
              re.findall(r"^\s+at 0x([0-9a-f]+): header (\d+), payload (\d+)", block, re.M)]
        pos = int(c[1], 16) + 16
        for a, h, p in at:
            R.eq(f"container {c[0]} entry at 0x{a:x}", a, pos)
            pos = a + h + p
        R.eq(f"container {c[0]} ends after its last entry", pos, int(c[1], 16) + int(c[3]))
    # each image as cudwarf extract writes it, read by readelf (ELF) or as text (PTX)
    d = tempfile.mkdtemp(dir=tmpdir())
    p = subprocess.run([CUDWARF, "extract", "-o", d, path], capture_output=True, text=True)
    if p.returncode:
        raise Unavailable(f"cudwarf extract: {p.stderr.strip()}")
    files = sorted(os.listdir(d))
    ent = None
    for line in text.splitlines():
        m = re.match(r"^  \[([^\]]+)\] (\S+)(?: sm_(\w+) (?:version|ISA) (\S+))?", line)
        if m:
            if ent:
                check_list_entry(ent, R)
            key = "." + m[1].lstrip(".").replace("#", "-") + ".sm_"
            f = [x for x in files if key in x]
            ent = dict(label=m[1], kind=m[2], sm=m[3], ver=m[4], file=os.path.join(d, f[0]) if len(f) == 1 else None,
                       line=line)
            continue
        m = re.search(r"image (\d+) bytes(, no code)?$", line)
        if m and ent:
            ent["image"], ent["nocode"] = int(m[1]), bool(m[2])
        m = re.match(r"^\s+debug sections: (.*)$", line)
        if m and ent:
            ent["debug"] = [] if m[1] == "none" else m[1].split()
    if ent:
        check_list_entry(ent, R)


def check_list_entry(e, R):
    w = f"[{e['label']}]"
    if e["file"] is None:
        R.fail(f"{w}: cudwarf extract wrote no file for it")
        return
    R.eq(f"{w} image bytes", e.get("image"), os.path.getsize(e["file"]))
    if e["kind"] == "ELF":
        flags = int(re.search(r"Flags:\s+(0x[0-9a-f]+)", tool("readelf", "-h", e["file"]))[1], 16)
        R.eq(f"{w} SM", int(re.match(r"\d+", e["sm"])[0]), (flags >> 8) & 0xFF)
        names = [s["name"] for s in elf_sections(e["file"])]
        R.eq(f"{w} debug sections", e.get("debug"), [n for n in names if re.match(r"^(\.nv\.merc)?\.(debug|nv_debug)_", n)])
        R.eq(f"{w} no code", e.get("nocode"), not any(n.startswith(".text.") for n in names))
    elif e["kind"] == "PTX":
        with open(e["file"], errors="replace") as f:
            src = f.read()
        R.eq(f"{w} ISA", e["ver"], re.search(r"^\s*\.version\s+(\S+)", src, re.M)[1])
        R.eq(f"{w} SM", e["sm"], re.search(r"^\s*\.target\s+sm_(\w+)", src, re.M)[1])
