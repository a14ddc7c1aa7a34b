#!/usr/bin/env python3
"""`cudwarf dump --macinfo --json` against GNU readelf --debug-dump=macro:
the hand-made object of tests/tools/mkelf.py (every DWARF 2/3 entry type,
two lists) and every given file with a .debug_macinfo (CUDA 13.0: a lone 0).
Compared entry by entry: type, line, file or constant, string.

usage: check_macinfo.py CUDWARF FILE...
"""
import json, re, subprocess, sys

cudwarf = sys.argv[1]
fail = checked = 0
for path in sys.argv[2:]:
    r = subprocess.run(["readelf", "--debug-dump=macro", path], capture_output=True, text=True)
    if ".debug_macinfo" not in r.stdout:
        continue
    ref = []
    for line in r.stdout.splitlines():
        m = re.match(r"^ (DW_MACINFO_\w+)(?: - (\w+) ?: (\d+) (\w+) ?: (.*))?$", line)
        if m:
            t, _, a, kind, b = m.groups()
            if t == "DW_MACINFO_start_file":
                ref.append((t, int(a), int(b)))
            elif t == "DW_MACINFO_end_file":
                ref.append((t,))
            elif t == "DW_MACINFO_vendor_ext":
                ref.append((t, int(a), b))
            else:
                ref.append((t, int(a), b))
    p = subprocess.run([cudwarf, "dump", "--macinfo", "--json", path], capture_output=True, text=True)
    mine = []
    if p.returncode == 0:
        for e in json.loads(p.stdout)[0]["sections"][0]["entries"]:
            t = e["type"]
            if t == "DW_MACINFO_start_file":
                mine.append((t, e["line"], e["file"]))
            elif t == "DW_MACINFO_end_file":
                mine.append((t,))
            elif t == "DW_MACINFO_vendor_ext":
                mine.append((t, e["constant"], e["string"]))
            elif t != "end":
                mine.append((t, e["line"], e["string"]))
    ok = p.returncode == 0 and mine == ref
    checked += 1
    fail += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {path}: {len(ref)} macinfo entries" + ("" if ok else f": ours {mine[:4]} readelf {ref[:4]}"))
print(f"{checked} files checked, {fail} failed")
sys.exit(1 if fail else 0)
