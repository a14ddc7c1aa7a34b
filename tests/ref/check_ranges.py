#!/usr/bin/env python3
"""`cudwarf dump --aranges --ranges --json` against the reference readers:
.debug_aranges against llvm-dwarfdump --debug-aranges (every set header and
range), .debug_ranges against eu-readelf --debug-dump=ranges (every list,
range and base-address selection).  CUDA 13.0 writes neither section; the
test object comes from tests/tools/mkelf.py ranges.

usage: check_ranges.py CUDWARF FILE...
"""
import json, re, subprocess, sys

cudwarf = sys.argv[1]
fail = 0


def report(ok, what):
    global fail
    print(("ok   " if ok else "FAIL ") + what)
    fail += not ok


for path in sys.argv[2:]:
    doc, = json.loads(subprocess.run([cudwarf, "dump", "--aranges", "--ranges", "--json", path],
                                     capture_output=True, text=True, check=True).stdout)
    secs = {s["section"]: s for s in doc["sections"]}
    if ".debug_aranges" in secs:
        out = subprocess.run(["llvm-dwarfdump", "--debug-aranges", path], capture_output=True, text=True).stdout
        ref = []
        for line in out.splitlines():
            m = re.match(r"Address Range Header: length = 0x([0-9a-f]+).*cu_offset = 0x([0-9a-f]+), addr_size = 0x([0-9a-f]+)", line)
            if m:
                ref.append([int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16), []])
            m = re.match(r"^\[0x([0-9a-f]+), 0x([0-9a-f]+)\)", line)
            if m:
                ref[-1][3].append((int(m.group(1), 16), int(m.group(2), 16)))
        mine = [[s["length"], s["unit_offset"], s["address_size"],
                 [(r["address"], r["address"] + r["length"]) for r in s["ranges"]]] for s in secs[".debug_aranges"]["sets"]]
        report(ref == mine and ref, f"{path} .debug_aranges: {len(ref)} sets, {sum(len(r[3]) for r in ref)} ranges"
               + ("" if ref == mine else f": ours {mine} llvm {ref}"))
    if ".debug_ranges" in secs:
        out = subprocess.run(["eu-readelf", "--debug-dump=ranges", path], capture_output=True, text=True).stdout
        ref, base_next = [], False
        for line in out.splitlines():
            m = re.match(r"^ \[\s*([0-9a-f]+)\] (.*)$", line)
            body = m.group(2) if m else line.strip()
            if m:
                ref.append((int(m.group(1), 16), []))
            if base_next:
                ref[-1][1].append(("base", int(body, 16)))
                base_next = False
            elif body == "base address":
                base_next = True
            else:
                r = re.match(r"^range ([0-9a-f]+), ([0-9a-f]+)$", body)
                if r:
                    ref[-1][1].append(("range", int(r.group(1), 16), int(r.group(2), 16)))
        mine, cur = [], None
        for l in secs[".debug_ranges"]["lists"]:
            ents = []
            for e in l["entries"]:
                if e["kind"] == "base":
                    ents.append(("base", e["end"]))
                elif e["kind"] == "range":
                    ents.append(("range", e["begin"], e["end"]))
            mine.append((l["offset"], ents))
        report(ref == mine and ref, f"{path} .debug_ranges: {len(ref)} lists, {sum(len(r[1]) for r in ref)} entries"
               + ("" if ref == mine else f": ours {mine} eu-readelf {ref}"))
sys.exit(1 if fail else 0)
