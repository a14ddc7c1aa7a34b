#!/usr/bin/env python3
"""cudwarf ptx-lines: PTX stage 1 against ptxas.

For every (PTX, cubin) pair -- the committed fixtures (tests/fixtures/stage1,
so the suite runs without the toolkit) and those tests/gen.sh compiled with
ptxas (sm_75..120, -G and -lineinfo, whole and -rdc, -O0..-O3, Mercury):
  - `ptx-lines --predict` writes exactly the cubin's .debug_line (and
    .nv.merc.debug_line) bytes, -o writes them to a file;
  - the rows of `--predict --json` are those `lines --json` decodes from
    the cubin, row numbers included (ptxas's numbering);
  - every .nv_debug_line_sass row of an instruction maps to a PTX
    instruction line of `ptx-lines --json`.
With ptxas present, hand-edited PTX: an inlined_at no earlier .loc matches
is rejected by ptxas and is our located error; gapped .file numbers are
accepted by ptxas and are our warning; function_name LABEL+IMM and explicit
.file mtime/size give sections we predict byte for byte.  A PTX that is not
the cubin's is one error naming the first differing line.

usage: ptx_lines.py CUDWARF FIXTURE_DIR [GEN_DIR]
"""
import glob, json, os, re, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from tally import Tally  # noqa: E402

CUDWARF, FIX = sys.argv[1], sys.argv[2]
GEN = sys.argv[3] if len(sys.argv) > 3 else None
T = Tally("ptx-lines")
tmp = tempfile.mkdtemp()
PTXAS = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)


def run(*a):
    return subprocess.run([CUDWARF, *a], capture_output=True, text=True)


def sections(path):
    r = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True).stdout
    return set(re.findall(r"\] (\.\S+)", r))


def section_bytes(path, name):
    import struct
    d = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", d, 0x28)
    esz, num, stx = struct.unpack_from("<HHH", d, 0x3a)
    hs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * esz) for i in range(num)]
    so = hs[stx][4]
    for h in hs:
        if d[so + h[0]:d.index(b"\0", so + h[0])].decode() == name:
            return d[h[4]:h[4] + h[5]]
    return None


def pairs():
    out = []
    for c in sorted(glob.glob(os.path.join(FIX, "stage1", "*.cubin"))):
        out.append((re.sub(r"(\.O\d)?\.cubin$", ".ptx", c), c))
    if GEN and os.path.isdir(os.path.join(GEN, "stage1")):
        for c in sorted(glob.glob(os.path.join(GEN, "stage1", "*", "*.cubin"))):
            out.append((re.sub(r"\.O\d\.cubin$", ".ptx", c), c))
    return out


identical = total = 0
for ptx, cubin in pairs():
    have = sections(cubin)
    for sec in (".debug_line", ".nv.merc.debug_line"):
        if sec not in have:
            continue
        out = os.path.join(tmp, "pred.bin")
        r = run("ptx-lines", "--predict", cubin, "--section", sec, "-o", out, ptx)
        same = r.returncode == 0 and os.path.exists(out) and open(out, "rb").read() == section_bytes(cubin, sec)
        total += 1
        identical += same
        T.check(f"predict {os.path.relpath(cubin)} {sec}: byte-identical", same, r.stderr.strip()[:300])
        if not same:
            continue
        pj = run("ptx-lines", "--predict", cubin, "--section", sec, "--json", ptx)
        lj = run("lines", "--json", "--hidden", "--section", sec, cubin)
        try:
            prow = json.loads(pj.stdout)[0]["rows"]
            lrow = json.loads(lj.stdout)[0]["sections"][0]["tables"][0]["rows"]
            keys = ("address", "file", "line", "context", "function", "end_sequence", "sequence", "row")
            a = [tuple(x.get(k) for k in keys) for x in prow if not x.get("hidden")]
            b = [tuple(x.get(k) for k in keys) for x in lrow if not x.get("hidden")]
            T.check(f"  rows and row numbers of {os.path.basename(cubin)} {sec} = lines --json's ({len(a)})",
                    a == b and json.loads(pj.stdout)[0]["identical"] is True)
        except (ValueError, IndexError, KeyError) as e:
            T.check(f"  rows of {os.path.basename(cubin)} {sec}", False, str(e))
print(f"{identical} of {total} sections byte-identical")

# every SASS row of an instruction maps to a PTX instruction line
ptx, cubin = next(p for p in pairs() if os.path.basename(p[1]) == "heavy_sm100_lineinfo.rdc.O3.cubin")
insns = {x["ptx_line"]: x for x in json.loads(run("ptx-lines", "--json", ptx).stdout)}
sass = json.loads(run("lines", "--json", "--section", ".nv_debug_line_sass", cubin).stdout)[0]
rows = [r for r in sass["sections"][0]["tables"][0]["rows"] if not r["end_sequence"]]
text = open(ptx).read().split("\n")
braces = {i + 1 for i, t in enumerate(text) if t.strip() == "{"}
missing = [r["line"] for r in rows if r["line"] not in insns and r["line"] not in braces]
T.check(f"ptx-lines --json: all {len(rows)} SASS rows of {os.path.basename(cubin)} land on its instruction lines",
        rows and not missing, missing[:5])
chain = [x for x in insns.values() if len(x["frames"]) >= 3]
T.check("ptx-lines --json: a 3-deep inline chain (clampv <- smooth <- heavy) is read from the .locs",
        any(x["frames"][0]["function"] == "_Z6clampvfff" and x["frames"][1]["function"] == "_Z6smoothf" for x in chain))

# addr2line on the noinline callee placed in the kernel: ptxas's numbering
heavy = os.path.join(FIX, "stage1", "heavy_sm90_lineinfo.O3.cubin")
r = run("addr2line", "-f", "-i", "-e", heavy, "--function", "_Z4kernPKfPfi", "0x300")
T.check("addr2line -f -i 0x300 of heavy (O3, callee in the kernel): clampv:3 <- smooth:7 <- heavy:14",
        r.stdout.split() == ["_Z6clampvfff", r.stdout.split()[1], "_Z6smoothf", r.stdout.split()[3], "_Z5heavyPKfi",
                             r.stdout.split()[5]] and r.stdout.split()[1].endswith(":3") and
        r.stdout.split()[3].endswith(":7") and r.stdout.split()[5].endswith(":14"), r.stdout)

r = run("addr2line", "-f", "-i", "-C", "-e", heavy, "--function", "_Z4kernPKfPfi", "0x300")
T.check("addr2line -C: the callee placed in the kernel ($kern$heavy) is demangled too",
        r.stdout.split("\n")[0::2][:3] == ["clampv(float, float, float)", "smooth(float)", "heavy(float const*, int)"],
        r.stdout)
# a callee placed in the kernel, entered at an inlined .loc (rule 5's repeat
# with the entry's SASS row once)
nsp = os.path.join(FIX, "stage1", "nsplace_sm90_lineinfo.O2.cubin")
r = run("addr2line", "-f", "-i", "-C", "-e", nsp, "--function", "_Z5propsPKfPfS1_i", "0x1b0", "0x1c0")
out = r.stdout.split("\n")
T.check("addr2line -f -i at 0x1b0/0x1c0 of nsplace (mass() placed, entered in geo::area()): "
        "geo::area:2 <- phys::area:6 <- phys::mass:7, then phys::area:6 <- phys::mass:7",
        out[0::2][:5] == ["geo::area(float)", "phys::area(float, int)", "phys::mass(float, float)",
                          "phys::area(float, int)", "phys::mass(float, float)"] and
        [x.rsplit(":", 1)[-1] for x in out[1::2][:5]] == ["2", "6", "7", "6", "7"], r.stdout)

# the PTX must be the cubin's
other = os.path.join(FIX, "stage1", "multi_sm75_lineinfo.ptx")
r = run("ptx-lines", "--predict", heavy, other)
T.check("a PTX that is not the cubin's: one error naming the first differing line, exit 1",
        r.returncode == 1 and re.search(r"line \d+ is not the line this cubin was made from", r.stderr) and
        r.stderr.count("\n") == 1, r.stderr)
# ptxas's text ends with the last line it keeps: the .file directives LLVM
# writes last, comments and blank lines after it are not in the cubin (and
# need not be), a statement there is (clangline.cu, docs/ptx-lines.md)
cl_cubin = os.path.join(FIX, "stage1", "clangline_sm90_lineinfo.O0.cubin")
cl_src = open(os.path.join(FIX, "stage1", "clangline_sm90_lineinfo.ptx")).read()
assert cl_src.rstrip().split("\n")[-1].strip().startswith(".file")
tail_ok = os.path.join(tmp, "tail_ok.ptx")
open(tail_ok, "w").write(cl_src + "\n// a comment\n\n")
tail_bad = os.path.join(tmp, "tail_bad.ptx")
open(tail_bad, "w").write(cl_src + "\n.global .u32 extra;\n")
r1, r2 = run("verify", "--ptx", tail_ok, cl_cubin), run("verify", "--ptx", tail_bad, cl_cubin)
T.check("trailing .file directives (LLVM's), comments, blank lines: not in .nv_debug_ptx_txt, the PTX is still the cubin's",
        r1.returncode == 0 and ".debug_line is what ptxas writes" in r1.stdout, r1.stdout + r1.stderr)
T.check("a trailing statement the cubin's text lacks: one error, 'more lines', exit 1",
        r2.returncode == 1 and "has more lines than the PTX this cubin was made from" in r2.stderr, r2.stderr)
r = run("ptx-lines", "--predict", heavy, "--section", ".nv.merc.debug_line", os.path.join(FIX, "stage1",
                                                                                      "heavy_sm90_lineinfo.ptx"))
T.check("--section of a Mercury table in an sm_90 cubin: an error, exit 1", r.returncode == 1 and "no .nv.merc" in r.stderr,
        r.stderr)
T.check("ptx-lines without a file: usage error", run("ptx-lines").returncode == 2)

# verify --ptx checks every table: a .debug_line whose line_base is off by one
# (every row's line moves) differs, and the Mercury table is still reported
src_cubin = os.path.join(FIX, "stage1", "collapse_sm100_lineinfo.O0.cubin")
d = bytearray(open(src_cubin, "rb").read())
dl = section_bytes(src_cubin, ".debug_line")
off = bytes(d).find(dl)
assert off > 0 and dl[4:6] == b"\x02\x00"  # DWARF 2: line_base at 12
d[off + 12] = (d[off + 12] + 1) & 0xFF
bad = os.path.join(tmp, "linebase.cubin")
open(bad, "wb").write(bytes(d))
r = run("verify", "--ptx", os.path.join(FIX, "stage1", "collapse_sm100_lineinfo.ptx"), bad)
T.check("verify --ptx: .debug_line differs and .nv.merc.debug_line is still checked, exit 1",
        r.returncode == 1 and re.search(r"\.debug_line differs from what ptxas writes", r.stdout) and
        re.search(r"\.nv\.merc\.debug_line is what ptxas writes", r.stdout), r.stdout[-400:])

# hand-edited PTX
src = open(os.path.join(FIX, "stage1", "heavy_sm90_lineinfo.ptx")).read()
lines = src.split("\n")


def uleb(v):
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def edited(name, text):
    p = os.path.join(tmp, name + ".ptx")
    open(p, "w").write(text)
    return p


def ptxas(p, out):
    return subprocess.run([PTXAS, "-arch=sm_90", "-O3", "--generate-line-info", "-o", out, p], capture_output=True,
                          text=True)


i = next(k for k, t in enumerate(lines) if "inlined_at" in t)
bad = lines[:]
bad[i] = re.sub(r"inlined_at \d+ \d+ \d+", "inlined_at 1 999 7", bad[i])
p = edited("unresolved", "\n".join(bad))
r = run("ptx-lines", p)
m = re.search(r":(\d+):(\d+): \.loc: inlined_at 1 999 7: no earlier \.loc 1 999 7", r.stderr)
T.check("an inlined_at no .loc precedes: FILE:LINE:COL error, exit 1",
        r.returncode == 1 and m and int(m.group(1)) == i + 1 and bad[i][int(m.group(2)) - 1:].startswith("1 999 7"),
        r.stderr)
if PTXAS:
    T.check("  ptxas rejects it too", ptxas(p, os.path.join(tmp, "u.cubin")).returncode != 0)

gapped = src.replace('.file\t1 "', '.file\t3 "', 1) if '.file\t1 "' in src else src.replace('.file 1 "', '.file 3 "', 1)
p = edited("gapped", gapped)
r = run("ptx-lines", p)
T.check("gapped .file numbers: accepted with a warning naming the line", r.returncode == 0 and "warning" in r.stderr and
        ".file 3" in r.stderr, r.stderr)

if PTXAS:
    # function_name LABEL+IMM: the offset of the second string as label0+N
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
    p = edited("imm", imm)
    c = os.path.join(tmp, "imm.cubin")
    r = ptxas(p, c)
    if T.check("ptxas takes function_name LABEL+IMM and .file mtime/size", r.returncode == 0, r.stderr):
        o = os.path.join(tmp, "imm.bin")
        r = run("ptx-lines", "--predict", c, "-o", o, p)
        T.check("  predicted byte-identical", r.returncode == 0 and open(o, "rb").read() == section_bytes(c, ".debug_line"),
                r.stderr)
        d = section_bytes(c, ".debug_line")
        T.check("  ptxas copied mtime/size into the header", d and uleb(1700000000) + uleb(4242) in d)
else:
    print("ptx-lines: ptxas not found: hand-edited PTX compiled by ptxas skipped", file=sys.stderr)

shutil.rmtree(tmp)
T.done()
