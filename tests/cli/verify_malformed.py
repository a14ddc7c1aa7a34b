"""cudwarf verify on corrupted real cubins: every corruption must produce a
finding at the right section and offset (exit 1), never a crash.  Where a
field lies is read from the unmodified cubin (cudwarf's JSON, itself
checked against llvm-dwarfdump elsewhere); each case then breaks that one
field.  Also: every fixture verifies clean (exit 0), and random damage of
line programs is reported (38 of 40 at least).

    python3 -m pytest -m verify
    python3 -m pytest -m verify -k calls_sm75
"""
import json
import os
import random
import struct

import pytest

import cubin_bytes
from suite_env import FIX, run

pytestmark = pytest.mark.verify

FIXTURES = ["tiny_sm90_G.rdc.cubin", "calls_sm75_G.cubin", "calls_sm80_G.rdc.cubin", "shared_sm100_G.rdc.cubin",
            "inline_sm90_lineinfo.rdc.cubin", "link2_sm80_G.link.g.cubin"]


def sections(data):
    """{name: header}, the first section of a name"""
    out = {}
    for name, h in cubin_bytes.sections(data):
        out.setdefault(name, h)
    return out


def run_json(*args):
    return json.loads(run(*args).stdout)[0]  # one cubin


@pytest.mark.parametrize("fx", FIXTURES)
def test_fixture_verifies_clean(fx):
    r = run("verify", os.path.join(FIX, fx))
    assert r.returncode == 0, r.stdout[-300:]


class Cases:
    """case(name, bytes, section, lo, hi): verify of the bytes exits 1 with
    an error finding in section at an offset in [lo, hi]."""

    def __init__(self, check, tmp):
        self.check, self.path = check, os.path.join(tmp, "m.cubin")

    def __call__(self, name, data, section, lo, hi=None):
        hi = lo if hi is None else hi
        open(self.path, "wb").write(data)
        r = run("verify", "--json", self.path, timeout=30)
        found = []
        if r.returncode == 1:
            found = [(x["section"], x["offset"]) for d in json.loads(r.stdout) for x in d["findings"]
                     if x["severity"] == "error"]
        self.check(f"{name} at {section}+0x{lo:x}..0x{hi:x}",
                   r.returncode == 1 and any(s == section and lo <= o <= hi for s, o in found),
                   f"exit {r.returncode}, got {found[:4]} {r.stderr.strip()[:200]}")


@pytest.mark.parametrize("fx", FIXTURES)
def test_corruptions(fx, tmp_path, check):
    path = os.path.join(FIX, fx)
    orig = open(path, "rb").read()
    secs = sections(orig)
    case = Cases(check, str(tmp_path))

    def patched(at, fmt, value):
        m = bytearray(orig)
        struct.pack_into(fmt, m, at, value)
        return bytes(m)

    if ".debug_info" in secs:
        info = secs[".debug_info"][4]
        doc = run_json("dump", "--info", "--json", "--section", ".debug_info", path)
        dies = [d for s in doc["sections"] for u in s["units"] for d in u["dies"]]
        units = [u for s in doc["sections"] for u in s["units"]]
        # 1. an abbreviation code that does not exist, at 4 DIEs
        for d in dies[1:len(dies):max(1, len(dies) // 4)][:4]:
            case("unknown abbreviation code", patched(info + d["offset"], "<B", 0x7E), ".debug_info", d["offset"])
        # 2. a reference out of its unit, at 3 ref4 attributes
        refs = [(d, a) for d in dies for a in d["attributes"] if a["form"] == "DW_FORM_ref4"]
        for d, a in refs[:3]:
            case("reference outside its unit", patched(info + a["value_offset"], "<I", 0x7FFFFF), ".debug_info",
                 a["value_offset"])
        # 3. a reference into the middle of a DIE
        for d, a in refs[3:5]:
            target = a["value"] - units[0]["unit_offset"] + 1
            case("reference not onto a DIE", patched(info + a["value_offset"], "<I", target), ".debug_info",
                 a["value_offset"])
        # 4. a unit length past the section
        case("unit length past the section", patched(info + units[-1]["unit_offset"], "<I", 0x7FFFFF), ".debug_info",
             units[-1]["unit_offset"])
        # 5. a DW_OP that does not exist in a location expression: the first op
        # of the block (after the 1-byte length)
        for d, a in [(d, a) for d in dies for a in d["attributes"] if a.get("expression")][:2]:
            size = len(bytes.fromhex(a["value"]))
            case("malformed DW_OP", patched(info + a["value_offset"] + 1, "<B", 0x01), ".debug_info",
                 a["value_offset"], a["value_offset"] + size + 1)
    if ".debug_abbrev" in secs:
        # the first entry's first attribute form: code(1) tag(1) children(1) attr(1) form
        case("unknown form in .debug_abbrev", patched(secs[".debug_abbrev"][4] + 4, "<B", 0x7F), ".debug_abbrev", 0, 8)
    if ".debug_line" in secs:
        ln = secs[".debug_line"][4]
        case("line table length past the section", patched(ln, "<I", 0x7FFFFF), ".debug_line", 0)
        doc = run_json("dump", "--line", "--json", "--section", ".debug_line", path)
        ops = [o for s in doc["sections"] for t in s["tables"] for o in t["ops"]]
        for o in [o for o in ops if o["op"] == "DW_LNS_set_file"][:2]:
            case("set_file past the file table", patched(ln + o["offset"] + 1, "<B", 0x70), ".debug_line", o["offset"])
        t0 = doc["sections"][0]["tables"][0]
        ends = [o for o in t0["ops"] if o["op"] == "DW_LNE_end_sequence"]
        if ends:  # the table's last end becomes an unknown extended opcode
            case("table ending inside a sequence", patched(ln + ends[-1]["offset"] + 2, "<B", 0x7B), ".debug_line",
                 ends[-1]["offset"], t0["offset"] + t0["unit_length"] + 4)
    if ".debug_frame" in secs:
        fr = secs[".debug_frame"]
        entries = run_json("dump", "--frames", "--json", "--section", ".debug_frame", path)["sections"][0]["entries"]
        e = entries[-1]
        case("frame entry length past the section", patched(fr[4] + e["offset"] + 4, "<Q", 0x7FFFFFFF), ".debug_frame",
             e["offset"])
        cie = next(x for x in entries if x["type"] == "CIE")
        end = cie["offset"] + cie["length"] + 12
        # the last byte of the CIE program: an unknown DW_CFA
        case("unknown call-frame instruction", patched(fr[4] + end - 1, "<B", 0x3F), ".debug_frame", cie["offset"], end)
        if any(x["type"] == "FDE" for x in entries):
            m = bytearray(orig)
            # turn every CIE into something else: the FDEs find no CIE at all
            for x in entries:
                if x["type"] == "CIE":
                    struct.pack_into("<Q", m, fr[4] + x["offset"] + 12, 0x1234)
            case("FDE without any CIE", bytes(m), ".debug_frame", 0, fr[5])
    if ".debug_loc" in secs:
        lc = secs[".debug_loc"][4]
        e = run_json("dump", "--loc", "--json", "--section", ".debug_loc", path)["sections"][0]["lists"][0]["entries"][0]
        case("location expression past the section", patched(lc + e["offset"] + 16, "<H", 0x7FFF), ".debug_loc",
             e["offset"], e["offset"] + 18)
    assert check.count, "no section to corrupt"


def test_random_line_program_damage(tmp_path):
    """Damage as users meet it: 32 random bytes written over a table's line
    program (fixed seeds).  The opcodes often still parse; the rows they
    decode to then break what every table of the compilers keeps (addresses
    on instruction boundaries, inside the function's section, never going
    back; a sequence named by its relocation).  Before those row checks
    verify reported 18 of these 40."""
    damaged = ["inline_sm90_lineinfo.rdc.cubin", "calls_sm75_G.cubin", "elfutils_nvidia_linemap_sm80.cubin",
               "virt_sm90_lineinfo.rdc.cubin"]
    reported = []
    for seed in range(40):
        path = os.path.join(FIX, damaged[seed % len(damaged)])
        m = bytearray(open(path, "rb").read())
        sl = sections(bytes(m))[".debug_line"]
        start = sl[4] + 10 + struct.unpack_from("<I", m, sl[4] + 6)[0]  # the first table's program
        end = sl[4] + sl[5]
        rnd = random.Random(seed)
        at = rnd.randrange(start, max(start + 1, end - 32))
        for k in range(min(32, end - at)):
            m[at + k] = rnd.randrange(256)
        p = tmp_path / "d.cubin"
        p.write_bytes(bytes(m))
        r = run("verify", p, timeout=30)
        if r.returncode == 1 and " 0 errors" not in r.stdout:
            reported.append(seed)
    assert len(reported) >= 38, f"{len(reported)} of 40 reported (want 38 at least): not seeds " \
        f"{sorted(set(range(40)) - set(reported))}"
