#!/usr/bin/env python3
"""Compare `cudwarf dump --json` for .debug_loc, .debug_str and
.debug_pubnames/.debug_pubtypes with llvm-dwarfdump on a relocated copy
(tests/oracles/cubin_prep -r -e -x; -m for the Mercury twins): every list
and its ranges (relocated) and expressions, every string with its offset,
every name with its DIE offset.

usage: compare_misc.py CUDWARF CUBIN_PREP FILE...
"""
import json, os, re, subprocess, sys, tempfile

INT = re.compile(r"^[+-]?(0x[0-9a-fA-F]+|\d+)$")


def llvm(path, what):
    return subprocess.run(["llvm-dwarfdump", f"--debug-{what}", path], capture_output=True, text=True).stdout


def ref_loc(text):
    lists, cur = [], None
    for line in text.splitlines():
        m = re.match(r"^0x([0-9a-f]+): ?$", line)
        if m:
            cur = {"offset": int(m.group(1), 16), "entries": []}
            lists.append(cur)
            continue
        m = re.match(r"^\s+\((0x[0-9a-f]+), (0x[0-9a-f]+)\): (.*)$", line)
        if m and cur is not None:
            ops = []
            for part in m.group(3).split(","):
                toks = part.split()
                if toks and toks[0].startswith("DW_OP"):
                    ops.append((toks[0], [int(t, 0) & 0xFFFFFFFFFFFFFFFF for t in toks[1:] if INT.match(t)]))
            cur["entries"].append((int(m.group(1), 16), int(m.group(2), 16), ops))
    return [l for l in lists if l["entries"]]


def ours_loc(doc):
    out = []
    for l in doc["lists"]:
        entries = [(e["begin"], e["end"], [(x["op"], [a & 0xFFFFFFFFFFFFFFFF for a in x["args"]])
                                           for x in e.get("expression", [])]) for e in l["entries"] if e["kind"] == "range"]
        if entries:
            out.append({"offset": l["offset"], "entries": entries})
    return out


def ref_str(text):
    return [(int(m.group(1), 16), m.group(2)) for m in re.finditer(r'^0x([0-9a-f]+): "(.*)"$', text, re.M)]


def ref_pub(text, section):
    m = re.search(rf"^{re.escape(section)} contents:\n(.*?)(?=^\.debug_|\Z)", text, re.M | re.S)
    if not m:
        return []
    return [(int(a, 16), b) for a, b in re.findall(r'^(0x[0-9a-f]+) "(.*)"$', m.group(1), re.M)]


def main():
    cudwarf, prep = sys.argv[1], sys.argv[2]
    fail = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in sys.argv[3:]:
            secs = subprocess.run([cudwarf, "sections", "--json", "--debug", path], capture_output=True, text=True)
            names = {s["name"] for s in json.loads(secs.stdout)[0]["sections"]} if secs.returncode == 0 else set()
            for merc in (False, True):
                prefix = ".nv.merc." if merc else "."
                views = [(prefix + n, n) for n in ("debug_loc", "debug_str", "debug_pubnames", "debug_pubtypes")
                         if prefix + n in names]
                if not views:
                    continue
                rel = os.path.join(tmp, "r.cubin")
                subprocess.run([prep, "-r", "-e", "-x", *(["-m"] if merc else []), path, rel], check=True,
                               capture_output=True)
                for section, base in views:
                    opt = {"debug_loc": "--loc", "debug_str": "--str", "debug_pubnames": "--pubnames",
                           "debug_pubtypes": "--pubtypes"}[base]
                    p = subprocess.run([cudwarf, "dump", opt, "--json", "--section", section, path],
                                       capture_output=True, text=True)
                    if p.returncode:
                        print(f"FAIL {path} {section}: {p.stderr.strip()}")
                        fail += 1
                        continue
                    doc = json.loads(p.stdout)[0]["sections"][0]
                    if base == "debug_loc":
                        ref, mine = ref_loc(llvm(rel, "loc")), ours_loc(doc)
                        n = sum(len(l["entries"]) for l in ref)
                    elif base == "debug_str":
                        ref = ref_str(llvm(rel, "str"))
                        mine = [(s["offset"], s["string"]) for s in doc["strings"]]
                        n = len(ref)
                    else:
                        ref = ref_pub(llvm(rel, base[6:]), "." + base)
                        mine = [(x["die"], x["name"]) for st in doc["sets"] for x in st["names"]]
                        n = len(ref)
                    ok = ref == mine and n > 0
                    fail += not ok
                    print(f"{'ok  ' if ok else 'FAIL'} {path} {section}: {n} {'ranges' if base == 'debug_loc' else 'entries'}"
                          f"{'' if ok else f' (ours {len(mine)})'}")
                    if not ok:
                        for a, b in zip(ref, mine):
                            if a != b:
                                print(f"     llvm {a} vs ours {b}")
                                break
    sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main()
