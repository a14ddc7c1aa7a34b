"""cudwarf ptx-lines: PTX stage 1 against ptxas.

For every (PTX, cubin) pair -- the committed fixtures (tests/fixtures/stage1,
so the suite runs without the toolkit) and those tests/gen.sh compiled with
ptxas into build/gen/stage1 (sm_75..120, -G and -lineinfo, whole and -rdc,
-O0..-O3, Mercury) -- test_predict checks each line section of the cubin
(.debug_line, .nv.merc.debug_line):
  - `ptx-lines --predict` writes exactly the cubin's .debug_line (and
    .nv.merc.debug_line) bytes, -o writes them to a file;
  - the rows of `--predict --json` are those `lines --json` decodes from
    the cubin, row numbers included (ptxas's numbering).
Every .nv_debug_line_sass row of an instruction maps to a PTX instruction
line of `ptx-lines --json`.  With ptxas present, hand-edited PTX: an
inlined_at no earlier .loc matches is rejected by ptxas and is our located
error; gapped .file numbers are accepted by ptxas and are our warning;
function_name LABEL+IMM and explicit .file mtime/size give sections we
predict byte for byte.  A PTX that is not the cubin's is one error naming
the first differing line.

    python3 -m pytest -m ptx_lines
    python3 -m pytest -m ptx_lines -k heavy_sm90
"""
import glob
import json
import os
import re
import shutil
import subprocess

import pytest

import cubin_bytes
from suite_env import FIX, GEN, QUICK, run, views

pytestmark = pytest.mark.ptx_lines

STAGE1 = os.path.join(FIX, "stage1")
HEAVY = os.path.join(STAGE1, "heavy_sm90_lineinfo.O3.cubin")


def section_bytes(path, name):
    d = open(path, "rb").read()
    h = next((h for n, h in cubin_bytes.sections(d) if n == name), None)
    return d[h[4]:h[4] + h[5]] if h else None


def ptx_of(cubin):
    """the PTX ptxas made the cubin of (the name less its -O level)"""
    return re.sub(r"(\.O\d)?\.cubin$", ".ptx", cubin)


# (--quick, the sanitizer build's run: every fourth compiled cubin; the
# normal build checks each byte for byte)
CUBINS = sorted(glob.glob(os.path.join(STAGE1, "*.cubin"))) + \
    sorted(glob.glob(os.path.join(GEN, "stage1", "*", "*.cubin")))[::4 if QUICK else 1]


@pytest.mark.parametrize("cubin,sec", views(CUBINS, (".debug_line", ".nv.merc.debug_line")))
def test_predict(cubin, sec, tmp_path, check):
    ptx, out = ptx_of(cubin), str(tmp_path / "pred.bin")
    r = run("ptx-lines", "--predict", cubin, "--section", sec, "-o", out, ptx)
    same = r.returncode == 0 and os.path.exists(out) and open(out, "rb").read() == section_bytes(cubin, sec)
    assert same, f"predict {sec}: not byte-identical: {r.stderr.strip()[:300]}"
    pj = run("ptx-lines", "--predict", cubin, "--section", sec, "--json", ptx)
    lj = run("lines", "--json", "--section", sec, cubin)
    prow = json.loads(pj.stdout)[0]["rows"]
    lrow = json.loads(lj.stdout)[0]["sections"][0]["tables"][0]["rows"]
    keys = ("address", "file", "line", "context", "function", "end_sequence", "sequence", "row")
    a = [tuple(x.get(k) for k in keys) for x in prow]
    b = [tuple(x.get(k) for k in keys) for x in lrow]
    check(f"rows and row numbers = lines --json's ({len(a)})", a == b)
    check("--predict --json says identical", json.loads(pj.stdout)[0]["identical"] is True)


@pytest.fixture(scope="module")
def heavy_sm100():
    """ptx-lines --json of heavy (sm_100, -rdc, O3): {PTX line: instruction}, and the cubin"""
    ptx = os.path.join(STAGE1, "heavy_sm100_lineinfo.rdc.ptx")
    return ptx, os.path.join(STAGE1, "heavy_sm100_lineinfo.rdc.O3.cubin"), \
        {x["ptx_line"]: x for x in json.loads(run("ptx-lines", "--json", ptx).stdout)}


def test_sass_rows_on_instructions(heavy_sm100):
    """ptx-lines --json: every SASS row of heavy_sm100 lands on its instruction lines"""
    ptx, cubin, insns = heavy_sm100
    sass = json.loads(run("lines", "--json", "--section", ".nv_debug_line_sass", cubin).stdout)[0]
    rows = [r for r in sass["sections"][0]["tables"][0]["rows"] if not r["end_sequence"]]
    text = open(ptx).read().split("\n")
    braces = {i + 1 for i, t in enumerate(text) if t.strip() == "{"}
    missing = [r["line"] for r in rows if r["line"] not in insns and r["line"] not in braces]
    assert rows and not missing, missing[:5]


def test_inline_chain(heavy_sm100):
    """ptx-lines --json: a 3-deep inline chain (clampv <- smooth <- heavy) is read from the .locs"""
    chain = [x for x in heavy_sm100[2].values() if len(x["frames"]) >= 3]
    assert any(x["frames"][0]["function"] == "_Z6clampvfff" and x["frames"][1]["function"] == "_Z6smoothf"
               for x in chain)


# addr2line on the noinline callee placed in the kernel: ptxas's numbering
def test_addr2line_placed_callee():
    """addr2line -f -i 0x300 of heavy (O3, callee in the kernel): clampv:3 <- smooth:7 <- heavy:14"""
    r = run("addr2line", "-f", "-i", "-e", HEAVY, "--function", "_Z4kernPKfPfi", "0x300")
    w = r.stdout.split()
    assert len(w) == 6 and w[0::2] == ["_Z6clampvfff", "_Z6smoothf", "_Z5heavyPKfi"] and w[1].endswith(":3") and \
        w[3].endswith(":7") and w[5].endswith(":14"), r.stdout


def test_addr2line_placed_callee_demangled():
    """addr2line -C: the callee placed in the kernel ($kern$heavy) is demangled too"""
    r = run("addr2line", "-f", "-i", "-C", "-e", HEAVY, "--function", "_Z4kernPKfPfi", "0x300")
    assert r.stdout.split("\n")[0::2][:3] == ["clampv(float, float, float)", "smooth(float)",
                                              "heavy(float const*, int)"], r.stdout


def test_addr2line_placed_entered_inlined():
    """a callee placed in the kernel, entered at an inlined .loc (B_ENTRY_REPEAT: the repeat with the entry's SASS
    row once): at 0x1b0/0x1c0 of nsplace (mass() placed, entered in geo::area()):
    geo::area:2 <- phys::area:6 <- phys::mass:7, then phys::area:6 <- phys::mass:7"""
    nsp = os.path.join(STAGE1, "nsplace_sm90_lineinfo.O2.cubin")
    r = run("addr2line", "-f", "-i", "-C", "-e", nsp, "--function", "_Z5propsPKfPfS1_i", "0x1b0", "0x1c0")
    out = r.stdout.split("\n")
    assert out[0::2][:5] == ["geo::area(float)", "phys::area(float, int)", "phys::mass(float, float)",
                             "phys::area(float, int)", "phys::mass(float, float)"] and \
        [x.rsplit(":", 1)[-1] for x in out[1::2][:5]] == ["2", "6", "7", "6", "7"], r.stdout


def test_ptx_not_the_cubins():
    """a PTX that is not the cubin's: one error naming the first differing line, exit 1"""
    r = run("ptx-lines", "--predict", HEAVY, os.path.join(STAGE1, "multi_sm75_lineinfo.ptx"))
    assert r.returncode == 1 and re.search(r"line \d+ is not the line this cubin was made from", r.stderr) and \
        r.stderr.count("\n") == 1, r.stderr


# ptxas's text ends with the last line it keeps: the .file directives LLVM
# writes last, comments and blank lines after it are not in the cubin (and
# need not be), a statement there is (clangline.cu, docs/ptx-lines.md)
@pytest.fixture
def clangline():
    src = open(os.path.join(STAGE1, "clangline_sm90_lineinfo.ptx")).read()
    assert src.rstrip().split("\n")[-1].strip().startswith(".file")
    return src, os.path.join(STAGE1, "clangline_sm90_lineinfo.O0.cubin")


def test_trailing_file_directives(clangline, tmp_path):
    """trailing .file directives (LLVM's), comments, blank lines: not in .nv_debug_ptx_txt, the PTX is still the cubin's"""
    src, cubin = clangline
    p = tmp_path / "tail_ok.ptx"
    p.write_text(src + "\n// a comment\n\n")
    r = run("verify", "--ptx", p, cubin)
    assert r.returncode == 0 and ".debug_line is what ptxas writes" in r.stdout, r.stdout + r.stderr


def test_trailing_statement(clangline, tmp_path):
    """a trailing statement the cubin's text lacks: one error, 'more lines', exit 1"""
    src, cubin = clangline
    p = tmp_path / "tail_bad.ptx"
    p.write_text(src + "\n.global .u32 extra;\n")
    r = run("verify", "--ptx", p, cubin)
    assert r.returncode == 1 and "has more lines than the PTX this cubin was made from" in r.stderr, r.stderr


def test_merc_section_absent():
    """--section of a Mercury table in an sm_90 cubin: an error, exit 1"""
    r = run("ptx-lines", "--predict", HEAVY, "--section", ".nv.merc.debug_line",
            os.path.join(STAGE1, "heavy_sm90_lineinfo.ptx"))
    assert r.returncode == 1 and "no .nv.merc" in r.stderr, r.stderr


def test_usage():
    """ptx-lines without a file: usage error"""
    assert run("ptx-lines").returncode == 2


def test_verify_every_table(tmp_path):
    """verify --ptx checks every table: a .debug_line whose line_base is off by one (every row's line
    moves) differs, and .nv.merc.debug_line is still reported; exit 1"""
    src_cubin = os.path.join(STAGE1, "collapse_sm100_lineinfo.O0.cubin")
    d = bytearray(open(src_cubin, "rb").read())
    dl = section_bytes(src_cubin, ".debug_line")
    off = bytes(d).find(dl)
    assert off > 0 and dl[4:6] == b"\x02\x00"  # DWARF 2: line_base at 12
    d[off + 12] = (d[off + 12] + 1) & 0xFF
    bad = tmp_path / "linebase.cubin"
    bad.write_bytes(bytes(d))
    r = run("verify", "--ptx", os.path.join(STAGE1, "collapse_sm100_lineinfo.ptx"), bad)
    assert r.returncode == 1 and re.search(r"\.debug_line differs from what ptxas writes", r.stdout) and \
        re.search(r"\.nv\.merc\.debug_line is what ptxas writes", r.stdout), r.stdout[-400:]


# --- hand-edited PTX ---
def uleb(v):
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


@pytest.fixture
def heavy_src():
    return open(os.path.join(STAGE1, "heavy_sm90_lineinfo.ptx")).read()


@pytest.fixture
def ptxas():
    path = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
    if not path:
        pytest.skip("ptxas not found: hand-edited PTX compiled by ptxas")

    def compile(p, out):
        return subprocess.run([path, "-arch=sm_90", "-O3", "--generate-line-info", "-o", str(out), str(p)],
                              capture_output=True, text=True)
    return compile


@pytest.fixture
def unresolved(heavy_src, tmp_path):
    """(heavy's PTX with an inlined_at no .loc precedes, its line number, the line)"""
    lines = heavy_src.split("\n")
    i = next(k for k, t in enumerate(lines) if "inlined_at" in t)
    lines[i] = re.sub(r"inlined_at \d+ \d+ \d+", "inlined_at 1 999 7", lines[i])
    p = tmp_path / "unresolved.ptx"
    p.write_text("\n".join(lines))
    return p, i + 1, lines[i]


def test_unresolved_inlined_at(unresolved):
    """an inlined_at no .loc precedes: FILE:LINE:COL error, exit 1"""
    p, line, text = unresolved
    r = run("ptx-lines", p)
    m = re.search(r":(\d+):(\d+): \.loc: inlined_at 1 999 7: no earlier \.loc 1 999 7", r.stderr)
    assert r.returncode == 1 and m and int(m.group(1)) == line and text[int(m.group(2)) - 1:].startswith("1 999 7"), \
        r.stderr


def test_unresolved_inlined_at_ptxas(unresolved, ptxas, tmp_path):
    """ptxas rejects it too"""
    assert ptxas(unresolved[0], tmp_path / "u.cubin").returncode != 0


def test_gapped_file_numbers(heavy_src, tmp_path):
    """gapped .file numbers: accepted with a warning naming the line"""
    gapped = heavy_src.replace('.file\t1 "', '.file\t3 "', 1) if '.file\t1 "' in heavy_src else \
        heavy_src.replace('.file 1 "', '.file 3 "', 1)
    p = tmp_path / "gapped.ptx"
    p.write_text(gapped)
    r = run("ptx-lines", p)
    assert r.returncode == 0 and "warning" in r.stderr and ".file 3" in r.stderr, r.stderr


def test_label_plus_imm(heavy_src, ptxas, tmp_path, check):
    """function_name LABEL+IMM (the offset of the second string as label0+N) and .file mtime/size"""
    src = heavy_src
    strs = re.findall(r"(\$L__info_string\d+):", src)
    body = src[src.index(".section\t.debug_str") if ".section\t.debug_str" in src else src.index(".section .debug_str"):]
    n0 = 0
    for ln in body.split("\n"):
        if strs[1] + ":" in ln:
            break
        if ".b8" in ln:
            n0 += len([x for x in ln.split(".b8", 1)[1].split(",") if x.strip()])
    imm = src.replace(f"function_name {strs[1]},", f"function_name {strs[0]}+{n0},")
    imm = re.sub(r'(\.file\s+1\s+"[^"]*")', r"\1, 1700000000, 4242", imm)
    p, c, o = tmp_path / "imm.ptx", str(tmp_path / "imm.cubin"), str(tmp_path / "imm.bin")
    p.write_text(imm)
    r = ptxas(p, c)
    assert r.returncode == 0, f"ptxas takes function_name LABEL+IMM and .file mtime/size: {r.stderr}"
    r = run("ptx-lines", "--predict", c, "-o", o, p)
    check("predicted byte-identical", r.returncode == 0 and open(o, "rb").read() == section_bytes(c, ".debug_line"),
          r.stderr)
    d = section_bytes(c, ".debug_line")
    check("ptxas copied mtime/size into the header", d and uleb(1700000000) + uleb(4242) in d)
