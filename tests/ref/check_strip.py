#!/usr/bin/env python3
"""`cudwarf strip -o OUT --keep-debug=DBG IN` on real cubins:
  - OUT has no debug section and no relocation section aimed at one, the
    same number of section headers, every other section byte-identical to
    IN's (by name), the same symbols (those of removed sections null), and
    every segment's bytes and addresses unchanged; cuobjdump -sass (when
    installed) prints the same code for both;
  - OUT + DBG give the same `cudwarf lines`, `dump --info --frames --loc`
    and addr2line answers (a sample of row addresses) as IN;
  - DBG given beside another cubin is refused; a malformed IN writes
    neither file.
Everything is read here with a small ELF parser, independently of cudwarf.

usage: check_strip.py CUDWARF FILE...
"""
import json, os, shutil, struct, subprocess, sys, tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import lines_json  # noqa: E402

cudwarf = sys.argv[1]
fail = 0
DEBUG = (".debug_", ".nv_debug", ".nv.merc.debug_", ".nv.merc.nv_debug")


class Elf:
    def __init__(self, path):
        self.data = d = open(path, "rb").read()
        shoff, = struct.unpack_from("<Q", d, 0x28)
        self.phoff, = struct.unpack_from("<Q", d, 0x20)
        self.phnum, = struct.unpack_from("<H", d, 0x38)
        shnum, shstrndx = struct.unpack_from("<HH", d, 0x3C)
        self.hdrs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * 64) for i in range(shnum)]
        st = self.hdrs[shstrndx]
        self.names = [d[st[4] + h[0]:d.index(b"\0", st[4] + h[0])].decode() for h in self.hdrs]

    def data_of(self, i):
        h = self.hdrs[i]
        return b"" if h[1] in (0, 8) else self.data[h[4]:h[4] + h[5]]

    def segments(self):
        """every program header but its offset, and the segment's bytes (for those
        holding the program header table, whose offsets move: its entries less p_offset)"""
        out = []
        for k in range(self.phnum):
            t, fl, off, va, pa, fs, ms, al = struct.unpack_from("<IIQQQQQQ", self.data, self.phoff + k * 56)
            if off <= self.phoff < off + fs:
                body = b"".join(self.data[self.phoff + j * 56:self.phoff + j * 56 + 8] +
                                self.data[self.phoff + j * 56 + 16:self.phoff + j * 56 + 56] for j in range(self.phnum))
            else:
                body = self.data[off:off + fs]
            out.append(((t, fl, va, pa, fs, ms, al), body))
        return out


def run(*args):
    return subprocess.run([cudwarf, *args], capture_output=True, text=True)


def body(text):
    return text.split("\n", 2)[2] if text.count("\n") > 1 else text


def report(ok, what):
    global fail
    print(("ok   " if ok else "FAIL ") + what)
    fail += not ok


cuobjdump = shutil.which("cuobjdump")
with tempfile.TemporaryDirectory() as tmp:
    out, dbg = os.path.join(tmp, "s.cubin"), os.path.join(tmp, "s.dbg")
    files = [p for p in sys.argv[2:] if open(p, "rb").read(4) == b"\x7fELF"]
    for path in files:
        p = run("strip", "-o", out, "--keep-debug=" + dbg, path)
        if p.returncode:
            report(False, f"{path}: strip: {p.stderr.strip()}")
            continue
        a, b = Elf(path), Elf(out)
        problems = []
        if len(a.hdrs) != len(b.hdrs):
            problems.append(f"{len(b.hdrs)} section headers, the input has {len(a.hdrs)}")
        removed = {i for i, n in enumerate(a.names) if n.startswith(DEBUG)}
        removed |= {i for i, h in enumerate(a.hdrs) if h[1] in (4, 9, 0x70000082) and h[7] in removed}
        for i in range(1, min(len(a.hdrs), len(b.hdrs))):
            if i in removed:
                if b.hdrs[i][1] != 0:
                    problems.append(f"section {i} ({a.names[i]}) still there")
                continue
            if a.names[i] != b.names[i] or a.hdrs[i][1:4] != b.hdrs[i][1:4] or a.hdrs[i][5:] != b.hdrs[i][5:]:
                problems.append(f"section {i} ({a.names[i]}): header changed")
            elif a.hdrs[i][1] in (2, 0x70000085):
                sa, sb = a.data_of(i), b.data_of(i)
                for k in range(0, len(sa), 24):
                    shndx, = struct.unpack_from("<H", sa, k + 6)
                    want = bytes(24) if shndx in removed else sa[k:k + 24]
                    if sb[k:k + 24] != want:
                        problems.append(f"{a.names[i]}: symbol {k // 24} changed")
                        break
            elif a.data_of(i) != b.data_of(i):
                problems.append(f"section {i} ({a.names[i]}): bytes changed")
        if a.segments() != b.segments():
            problems.append("segments changed")
        if cuobjdump:
            sa = subprocess.run([cuobjdump, "-sass", path], capture_output=True, text=True).stdout
            sb = subprocess.run([cuobjdump, "-sass", out], capture_output=True, text=True).stdout
            if sa != sb:
                problems.append("cuobjdump -sass differs")
        lines_a = run("lines", path).stdout
        lines_b = run("lines", "--debug-file", dbg, out).stdout
        if body(lines_a) != body(lines_b):
            problems.append("cudwarf lines differs with --debug-file")
        dump_a = run("dump", "--info", "--frames", "--loc", path).stdout
        dump_b = run("dump", "--info", "--frames", "--loc", "--debug-file", dbg, out).stdout
        if body(dump_a) != body(dump_b):
            problems.append("cudwarf dump differs with --debug-file")
        locs = []
        doc, = json.loads(run("lines", "--json", path).stdout)
        for s in doc["sections"]:
            for t in s["tables"]:
                locs += [f"{r['symbol']}+{r['offset']:#x}" for r in list(lines_json.rows(t))[::7] if r.get("symbol")]
        locs = sorted(set(locs))[:40]
        if locs:
            a2a = run("addr2line", "-e", path, "-fip", *locs).stdout
            a2b = run("addr2line", "--debug-file", dbg, "-e", out, "-fip", *locs).stdout
            if a2a != a2b:
                problems.append("addr2line differs with --debug-file")
        saved = len(a.data) - len(b.data)
        report(not problems, f"{path}: {len(removed)} sections removed, {saved} bytes saved, "
                             f"{len(locs)} addr2line answers equal" + ("" if not problems else ": " + "; ".join(problems[:3])))
    if len(files) >= 2:
        run("strip", "-o", out, "--keep-debug=" + dbg, files[0])
        p = run("lines", "--debug-file", dbg, files[1])
        report(p.returncode == 1 and "does not belong" in p.stderr,
               f"a companion beside another cubin is refused: {p.stderr.strip()[:100]}")
        bad = os.path.join(tmp, "bad.cubin")
        open(bad, "wb").write(open(files[0], "rb").read()[:200])
        o2, d2 = os.path.join(tmp, "o2.cubin"), os.path.join(tmp, "d2.dbg")
        p = run("strip", "-o", o2, "--keep-debug=" + d2, bad)
        left = [x for x in os.listdir(tmp) if x.startswith(("o2", "d2"))]
        report(p.returncode == 1 and not left, f"a truncated input writes nothing: exit {p.returncode}, left {left}")
print(f"{len(files)} files stripped, {fail} failed")
sys.exit(1 if fail else 0)
