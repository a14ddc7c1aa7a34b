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

Inputs: the fixtures and build/gen's cubins (every fourth under the
sanitizer build) that have .nv_debug_info_reg_sass.

    python3 -m pytest -m reg_sass tests/ref/check_reg_sass.py
"""
import json
import re

import pytest

from cubin_bytes import func_symbols, ptx_bodies, ptx_texts, sections
from suite_env import fixture_cubins, gen_sample, run, section_names, short

pytestmark = pytest.mark.reg_sass

LIMITS = {5: 255, 2: 7, 11: 63, 9: 7, 4: 511, 10: 127}  # 4, 10: 16-bit halves of R, UR


@pytest.mark.parametrize("path", [f for f in fixture_cubins() + gen_sample()
                                  if ".nv_debug_info_reg_sass" in section_names(f)], ids=short)
def test_records(path):
    data = open(path, "rb").read()
    secs = sections(data)
    funcs = {n: (shndx, value, size) for n, shndx, value, size in func_symbols(data, secs)}
    bodies = {}
    for lines in ptx_texts(data, secs).values():
        for fn, (a, b) in ptx_bodies(lines).items():
            bodies.setdefault(fn, "\n".join(lines[a - 1:b]))
    p = run("dump", "--reg-sass", "--reg-type", "--json", "--section", ".nv_debug_info_reg_sass", path)
    q = run("dump", "--reg-type", "--json", "--section", ".nv_debug_info_reg_type", path)
    assert p.returncode == q.returncode == 0, f"cudwarf exited {p.returncode}/{q.returncode}"
    recs = json.loads(p.stdout)[0]["sections"][0]["functions"]
    types = json.loads(q.stdout)[0]["sections"][0]["functions"]
    assert [r["function"] for r in recs] == [t["function"] for t in types] and \
        [len(r["entries"]) for r in recs] == [len(t["entries"]) for t in types], \
        "reg_type records do not pair with reg_sass records"
    bad, n, msgs, internal = 0, 0, [], 0
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
    assert n > 0 and bad == 0, f"{len(recs)} functions, {n} entries ({internal} made by ptxas), {bad} bad:\n" + \
        "\n".join(msgs)
