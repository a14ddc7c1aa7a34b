#!/usr/bin/env python3
"""Compare the DIE trees of `cudwarf dump --info --json` with llvm-dwarfdump's.

llvm-dwarfdump applies no EM_CUDA relocation, so it reads a relocated copy
made by tests/oracles/cubin_prep (-r -e -x; with -m for the Mercury twin).
Every DIE is compared: offset, tag, attribute names in order, and values:
strings, numbers (addresses, constants, references), enumerations, and
DW_OP expressions operation by operation.  decl_file/call_file are compared
once line tables are decoded (llvm prints the path); until then skipped.

usage: compare_dies.py CUDWARF CUBIN_PREP FILE...   (prints one line per view;
exit 1 when anything differs)
"""
import json, os, re, subprocess, sys, tempfile

INT = re.compile(r"^[+-]?(0x[0-9a-fA-F]+|\d+)")


def llvm_dies(path):
    p = subprocess.run(["llvm-dwarfdump", "--debug-info", path], capture_output=True, text=True)
    dies, cur, pending = [], None, None
    for line in p.stdout.splitlines():
        if pending is not None:
            # multi-line value (location lists): keep the first line only
            pending[1] += "\n" + line
            if line.rstrip().endswith(")"):
                cur["attrs"].append((pending[0], pending[1]))
                pending = None
            continue
        m = re.match(r"^0x([0-9a-f]+):\s+(DW_TAG_\w+|NULL)", line)
        if m:
            cur = None if m.group(2) == "NULL" else {"offset": int(m.group(1), 16), "tag": m.group(2), "attrs": []}
            if cur:
                dies.append(cur)
            continue
        m = re.match(r"^\s+(DW_AT_\w+)\s+\((.*)$", line)
        if m and cur is not None:
            val = m.group(2)
            if val.rstrip().endswith(")"):
                cur["attrs"].append((m.group(1), val.rstrip()[:-1]))
            else:
                pending = [m.group(1), val]
    return dies


def our_dies(cudwarf, path, section):
    p = subprocess.run([cudwarf, "dump", "--info", "--json", "--section", section, path],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"cudwarf exited {p.returncode}: {p.stderr.strip()}")
    doc, = json.loads(p.stdout)  # a cubin: an array of one image
    out = []
    for sec in doc["sections"]:
        for u in sec["units"]:
            out.extend(u["dies"])
    return out


def parse_ops(text):
    """'DW_OP_regx 0x257236, DW_OP_deref' -> [('DW_OP_regx', [0x257236]), ...]"""
    ops = []
    for part in text.split(","):
        toks = part.split()
        if not toks or not toks[0].startswith("DW_OP"):
            continue
        args = []
        for t in toks[1:]:
            m = INT.match(t)
            if m:
                args.append(int(m.group(0), 0))
        ops.append((toks[0], args))
    return ops


def same_value(name, ref, ours):
    v = ours.get("value")
    if name in ("DW_AT_decl_file", "DW_AT_call_file"):
        return None  # llvm prints the path from the line table
    if ref.startswith("<0x"):  # llvm's raw block: "<0x0000000a> 03 40 00 ..."
        return ours.get("value") == "".join(ref.split()[1:])
    if "expression" in ours:
        mine = [(o["op"], [a & 0xFFFFFFFFFFFFFFFF for a in o["args"]]) for o in ours["expression"]]
        theirs = [(n, [a & 0xFFFFFFFFFFFFFFFF for a in args]) for n, args in parse_ops(ref)]
        return mine == theirs
    if ref.startswith('"'):
        return isinstance(v, str) and ref == '"' + v + '"'
    if ref.startswith("DW_"):
        return ours.get("text") == ref.split()[0]
    if ref in ("true", "false"):
        return bool(v) == (ref == "true")
    m = INT.match(ref)
    if not m:
        return None
    n = int(m.group(0), 0) & 0xFFFFFFFFFFFFFFFF
    if isinstance(v, bool):
        v = int(v)
    if isinstance(v, int):
        return (v & 0xFFFFFFFFFFFFFFFF) == n
    return False


def compare(cudwarf, ref_path, orig_path, section):
    ref = llvm_dies(ref_path)
    ours = our_dies(cudwarf, orig_path, section)
    bad, values, skipped, msgs = 0, 0, 0, []
    if len(ref) != len(ours):
        msgs.append(f"{len(ours)} DIEs vs llvm's {len(ref)}")
    for r, o in zip(ref, ours):
        if r["offset"] != o["offset"] or r["tag"] != o["tag"]:
            bad += 1
            msgs.append(f"DIE 0x{r['offset']:x} {r['tag']} vs ours 0x{o['offset']:x} {o['tag']}")
            continue
        names = [a["name"] for a in o["attributes"]]
        # llvm names attributes it does not know DW_AT_unknown_XXXX
        theirs = [n for n, _ in r["attrs"]]
        names = [t if t.startswith("DW_AT_unknown_") and int(t[14:], 16) == a["at"] else a["name"]
                 for t, a in zip(theirs, o["attributes"])] + names[len(theirs):]
        if names != theirs:
            bad += 1
            msgs.append(f"DIE 0x{r['offset']:x}: attributes {names} vs {[n for n, _ in r['attrs']]}")
            continue
        for (n, rv), oa in zip(r["attrs"], o["attributes"]):
            s = same_value(n, rv.split("\n")[0].strip(), oa)
            if s is None:
                skipped += 1
            elif s:
                values += 1
            else:
                bad += 1
                msgs.append(f"DIE 0x{r['offset']:x} {n}: llvm {rv!r} vs ours {oa.get('value')!r}")
    if len(ref) != len(ours):
        bad += abs(len(ref) - len(ours))
    return len(ref), values, skipped, bad, msgs


def main():
    args = sys.argv[1:]
    ours_section = None
    if args and args[0].startswith("--ours="):  # compare this section of ours with llvm's .debug_info
        ours_section = args.pop(0)[7:]
    cudwarf, prep = args[0], args[1]
    sys.argv = [sys.argv[0]] + args
    fail = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in sys.argv[3:]:
            secs = subprocess.run([cudwarf, "sections", "--json", "--debug", path], capture_output=True, text=True)
            names = [s["name"] for s in json.loads(secs.stdout)[0]["sections"]] if secs.returncode == 0 else []
            views = [(".debug_info", [])] if ".debug_info" in names else []
            if ours_section:
                views = [(ours_section, [])]
            if ".nv.merc.debug_info" in names:
                views.append((".nv.merc.debug_info", ["-m"]))
            for section, extra in views:
                rel = os.path.join(tmp, "r.cubin")
                subprocess.run([prep, "-r", "-e", "-x", *extra, path, rel], check=True, capture_output=True)
                try:
                    n, values, skipped, bad, msgs = compare(cudwarf, rel, path, section)
                except RuntimeError as e:
                    print(f"FAIL {path} {section}: {e}")
                    fail += 1
                    continue
                status = "ok  " if bad == 0 and n > 0 else "FAIL"
                print(f"{status} {path} {section}: {n} DIEs, {values} values equal, {skipped} not compared, {bad} differ")
                for m in msgs[:5]:
                    print("     " + m)
                if status != "ok  ":
                    fail += 1
    sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main()
