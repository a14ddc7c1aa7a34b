#!/usr/bin/env python3
"""The name indexes cudwarf builds (`cudwarf pubnames`) against the ones
NVVM/ptxas wrote into the objects: for every file with a .debug_pubnames or
.debug_pubtypes (and their Mercury twins), `--check` must find them
byte-identical, relocations applied; `-o` must write the raw bytes of a
relocatable object's section exactly (unit offset 0, relocated later).  A
copy with one name byte changed must be caught.

usage: check_pubnames.py CUDWARF FILE...
"""
import os, struct, subprocess, sys, tempfile

cudwarf = sys.argv[1]
fail = 0


def sections(data):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = hdrs[shstrndx]
    def name(h):
        s = data[strtab[4] + h[0]:]
        return s[:s.index(b"\0")].decode()
    return {name(h): h for h in hdrs}


def report(ok, what):
    global fail
    print(("ok   " if ok else "FAIL ") + what)
    fail += not ok


files = []
for path in sys.argv[2:]:
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF":
        continue
    secs = sections(data)
    if ".debug_pubnames" not in secs and ".nv.merc.debug_pubnames" not in secs:
        continue
    files.append(path)
    for kind in ([], ["--types"]):
        p = subprocess.run([cudwarf, "pubnames", "--check"] + kind + [path], capture_output=True, text=True)
        same = [l for l in p.stdout.splitlines() if " identical to the index built from " in l]
        want = sum(1 for n in (".debug_pubtypes" if kind else ".debug_pubnames",) for t in ("", ".nv.merc")
                   if (t + n if t else n) in secs)
        report(p.returncode == 0 and len(same) == want,
               f"{path} {'pubtypes' if kind else 'pubnames'}: {len(same)}/{want} sections identical"
               + ("" if p.returncode == 0 else ": " + (p.stdout + p.stderr).strip()[:300]))
    h = secs.get(".debug_pubnames")
    rel = struct.unpack_from("<H", data, 16)[0] == 1
    if h and rel:
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "pn.bin")
            p = subprocess.run([cudwarf, "pubnames", "-o", out, path], capture_output=True, text=True)
            got = open(out, "rb").read() if os.path.exists(out) else b""
            report(p.returncode == 0 and got == data[h[4]:h[4] + h[5]],
                   f"{path}: pubnames -o writes the section's {h[5]} bytes as ptxas did")

# the index built (pubnames --json) and the index ptxas wrote (dump --pubnames
# --json, the same printer) agree set for set, names and unit offsets
# resolved: what pubnames prints is what the reader reads back
import json
for path in files[:6]:
    built = subprocess.run([cudwarf, "pubnames", "--json", path], capture_output=True, text=True)
    have = subprocess.run([cudwarf, "dump", "--json", "--pubnames", path], capture_output=True, text=True)
    try:
        b = [o["sets"] for o in json.loads(built.stdout) if o["section"] == ".debug_pubnames"]
        h = [sec["sets"] for im in json.loads(have.stdout) for sec in im["sections"]
             if sec["section"] == ".debug_pubnames"]
    except (ValueError, KeyError):
        b, h = None, []
    report(b is not None and h and b == h,
           f"{path}: pubnames --json sets = dump --pubnames --json sets ({sum(len(x) for x in h)} sets)")

# a wrong byte must be found: change one character of the first name
if files:
    path = files[0]
    data = bytearray(open(path, "rb").read())
    h = sections(bytes(data))[".debug_pubnames"]
    at = h[4] + 18  # first name's first character (set header 14 + DIE offset 4)
    data[at] ^= 0x20
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "bad.cubin")
        open(bad, "wb").write(data)
        p = subprocess.run([cudwarf, "pubnames", "--check", bad], capture_output=True, text=True)
        report(p.returncode == 1 and ".debug_pubnames+0x12: byte" in p.stdout,
               f"a copy of {os.path.basename(path)} with one name byte changed is caught: {p.stdout.strip()[:120]}")
print(f"{len(files)} files with name indexes, {fail} failed")
sys.exit(1 if fail else 0)
