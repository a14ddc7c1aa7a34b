#!/usr/bin/env python3
"""Check every .nv_debug_info_reg_sass record (as `cudwarf dump --reg-sass
--json` decodes it) against the rest of the cubin, read independently here:
the PTX register occurs in the body of that function in the PTX text (or
is a register of a ptxas built-in routine, named "...__cuda_...", or of a family
the function does not declare or numbered past its declaration .reg .b32
%r<N>: ptxas made it expanding an instruction such as rcp.rn.f32), the
SASS register is a valid R (class 5, 0-255, or a 16-bit half: class 4), P (2, 0-7), UR (11, 0-63, halves: 10) or UP
(9, 0-7) register, and start <= end <= the function's size (its FUNC
symbol).  Also: .nv_debug_info_reg_type has one byte per entry, function by
function.

usage: check_reg_sass.py CUDWARF FILE...
"""
import importlib.util, json, os, re, subprocess, sys

spec = importlib.util.spec_from_file_location("sp", os.path.join(os.path.dirname(__file__), "check_sass_ptx.py"))
sp = importlib.util.module_from_spec(spec)
sys.argv, argv = sys.argv[:1], sys.argv
spec.loader.exec_module(sp)
sys.argv = argv

LIMITS = {5: 255, 2: 7, 11: 63, 9: 7, 4: 511, 10: 127}  # 4, 10: 16-bit halves of R, UR
cudwarf = sys.argv[1]
fail = 0
for path in sys.argv[2:]:
    data = open(path, "rb").read()
    secs = sp.elf_sections(data)
    names = [n for n, _ in secs]
    if ".nv_debug_info_reg_sass" not in names:
        continue
    funcs = sp.functions(data, secs, 2)
    ptx = {n: [l.decode("utf-8", "replace") for l in data[h[4]:h[4] + h[5]].split(b"\0")[:-1]]
           for n, h in secs if n.startswith(".nv_debug_ptx_txt")}
    bodies = {}
    for n, lines in ptx.items():
        for fn, (a, b) in sp.ptx_bodies(lines).items():
            bodies.setdefault(fn, "\n".join(lines[a - 1:b]))
    p = subprocess.run([cudwarf, "dump", "--reg-sass", "--reg-type", "--json", "--section", ".nv_debug_info_reg_sass",
                        path], capture_output=True, text=True)
    q = subprocess.run([cudwarf, "dump", "--reg-type", "--json", "--section", ".nv_debug_info_reg_type", path],
                       capture_output=True, text=True)
    if p.returncode or q.returncode:
        print(f"FAIL {path}: cudwarf exited {p.returncode}/{q.returncode}")
        fail += 1
        continue
    recs = json.loads(p.stdout)[0]["sections"][0]["functions"]
    types = json.loads(q.stdout)[0]["sections"][0]["functions"]
    bad, n, msgs, internal = 0, 0, [], 0
    if [r["function"] for r in recs] != [t["function"] for t in types] or \
            [len(r["entries"]) for r in recs] != [len(t["entries"]) for t in types]:
        bad += 1
        msgs.append("reg_type records do not pair with reg_sass records")
    for r in recs:
        fn = r["function"]
        sym = funcs.get(fn) or next((v for k, v in funcs.items() if k.endswith("$" + fn)), None)
        body = bodies.get(fn)
        for e in r["entries"]:
            n += 1
            cls, idx = e["sass"] >> 24, e["sass"] & 0xFFFFFF
            why = None
            m = re.match(r"^(%[a-zA-Z]+)(\d+)$", e["ptx"])
            declared = dict(re.findall(r"\.reg\s+\.\w+\s+(%[a-zA-Z]+)<(\d+)>", body or ""))
            if "__cuda_" in e["ptx"] or fn.startswith("__cuda_"):
                internal += 1  # a register of a ptxas built-in routine (division, remainder...): not in the PTX
            elif m and body is not None and (m.group(1) not in declared or int(m.group(2)) >= int(declared[m.group(1)])) \
                    and not re.search(re.escape(e["ptx"]) + r"(?![\w$])", body):
                internal += 1  # past (or outside) the declared %r<N>: made by ptxas expanding rcp.rn.f32, sqrt.rn.f32...
            elif body is None or not re.search(re.escape(e["ptx"]) + r"(?![\w$])", body):
                why = f"{e['ptx']} not in the PTX body of {fn}"
            elif cls not in LIMITS or idx > LIMITS[cls]:
                why = f"SASS register 0x{e['sass']:08x} is not R/P/UR/UP"
            elif sym is None or not (e["start"] <= e["end"] <= sym[2]):
                why = f"range [0x{e['start']:x}, 0x{e['end']:x}) against function size {sym and hex(sym[2])}"
            if why:
                bad += 1
                if len(msgs) < 3:
                    msgs.append(f"{fn}: {why}")
    ok = bad == 0 and n > 0
    fail += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {path}: {len(recs)} functions, {n} entries ({internal} made by ptxas), {bad} bad")
    for m in msgs:
        print("     " + m)
sys.exit(1 if fail else 0)
