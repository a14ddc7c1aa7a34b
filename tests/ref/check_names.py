#!/usr/bin/env python3
"""What a new user meets (issue 38), on tests/src/names/nbody.cu built here
with nvcc (-lineinfo and -G cubins for sm_90, a two-SM executable):

1. a function by its short, demangled or mangled name answers alike
   (addr2line, correlate --function); an unknown name, a name of two
   template instantiations and an offset past the end each say why
   (stderr and JSON "error"), keep their answer line, and exit 1;
2. correlate credits a source line two instantiations share to both, with
   bytes that add up to the line's; it skips the executable's image with
   no code, so --html --sm 90 on two SMs writes the page;
3. one message form for an --sm the input lacks; ptx-lines refuses a .cu;
4. lines on a library without line tables says so in one line.

usage: check_names.py CUDWARF   (skips, counted, without nvcc)
"""
import json, os, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import tally  # noqa: E402

CUDWARF = sys.argv[1]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = os.path.join(ROOT, "tests", "src", "names", "nbody.cu")
T = tally.Tally("names")
check = T.check


def run(*a):
    return subprocess.run([CUDWARF, *a], capture_output=True, text=True)


if not shutil.which("nvcc"):
    print("skipped: no nvcc (these checks compile tests/src/names/nbody.cu)")
    print("names: 0 passed, 0 failed, 1 skipped")
    sys.exit(0)
tmp = tempfile.mkdtemp()
cub = {m: os.path.join(tmp, f"nbody.{m}.cubin") for m in ("lineinfo", "G")}
for m, p in cub.items():
    subprocess.run(["nvcc", "-arch=sm_90", f"-{m}", "-cubin", "-o", p, SRC], check=True)
exe = os.path.join(tmp, "nbody")
subprocess.run(["nvcc", "-gencode", "arch=compute_75,code=sm_75", "-gencode", "arch=compute_90,code=sm_90",
                "-lineinfo", "-o", exe, SRC], check=True)

# 1. names
for m, p in cub.items():
    want = run("addr2line", "-f", "-i", "-e", p, "_Z6forcesPK6float4P6float3i+0x40")
    for name in ("forces", "forces(float4 const*, float3*, int)", "void scale<float>(float*, float, int)"):
        loc = f"{name}+0x40"
        r = run("addr2line", "-f", "-i", "-e", p, loc)
        if name.startswith("void"):
            w = run("addr2line", "-f", "-i", "-e", p, "_Z5scaleIfEvPT_S0_i+0x40")
        else:
            w = want
        check(f"{m}: addr2line -f -i {loc} answers as the mangled name", r.returncode == 0 and r.stdout == w.stdout
              and r.stdout.strip() and "??" not in r.stdout, r.stdout + r.stderr)
    r = run("addr2line", "-f", "--json", "-e", p, "scale+0x10", "forcse+0x10", "forces+0x90000")
    j = json.loads(r.stdout) if r.stdout else []
    errs = [x.get("error") or "" for x in j]
    check(f"{m}: a name of two instantiations lists both, a typo names the nearest, past the end says so; exit 1",
          r.returncode == 1 and len(j) == 3 and "_Z5scaleIdEvPT_S0_i" in errs[0] and "_Z5scaleIfEvPT_S0_i" in errs[0]
          and "nearest: forces" in errs[1] and "past the end of _Z6forcesPK6float4P6float3i" in errs[2]
          and r.stderr.count("\n") == 3, r.stdout + r.stderr)
    a, b = run("correlate", "--json", "--function", "forces", p), run("correlate", "--json", "--function",
                                                                    "_Z6forcesPK6float4P6float3i", p)
    check(f"{m}: correlate --function forces = the mangled name's", a.returncode == 0 and a.stdout == b.stdout,
          a.stderr)
    # 2. a template line: both instantiations
    doc = json.loads(run("correlate", "--json", p).stdout)[0]
    shared = [x for x in doc["source_lines"] if len({f["function"] for f in x["functions"]} &
                                                    {"_Z5scaleIfEvPT_S0_i", "_Z5scaleIdEvPT_S0_i"}) == 2]
    check(f"{m}: a line of scale<T> lists both instantiations, their bytes adding up to the line's",
          shared and all(sum(f["sass_bytes"] for f in x["functions"]) == x["sass_bytes"] for x in doc["source_lines"]),
          f"{len(shared)} lines")
    if m == "lineinfo":  # sq<T> (line 6) is inlined at line 35 by both scale<T>: two call sites
        sq = [x for x in doc["source_lines"] if x["line"] == 6]
        calls = {(c["line"], c["function"]) for x in sq for c in x["callers"]}
        check(f"{m}: sq's line names both scale<T> calling it from line 35, callers' bytes within the line's",
              {(35, "_Z5scaleIfEvPT_S0_i"), (35, "_Z5scaleIdEvPT_S0_i")} <= calls and
              all(sum(c["sass_bytes"] for c in x["callers"]) <= x["sass_bytes"] for x in doc["source_lines"]),
              str(calls))

r = run("list", "--json", exe)
ims = json.loads(r.stdout)[0]["images"] if r.returncode == 0 else []
nocode = [im["label"] for im in ims if im.get("has_code") is False]
check("executable: list marks the first container's images 'no code'", len(nocode) == 2, str(nocode))
for c in (["correlate", "--function", "forces"], ["correlate", "--json", "--function", "forcse"]):
    try:  # a short name in a multi-image input once waited on its own lock
        r = subprocess.run([CUDWARF, *c, exe], capture_output=True, text=True, timeout=60)
        ok = r.returncode == (0 if c[-1] == "forces" else 1)
    except subprocess.TimeoutExpired:
        r, ok = None, False
    check(f"executable: {' '.join(c)} answers (no hang)", ok, r.stderr[:200] if r else "timed out")
page = os.path.join(tmp, "page.html")
r = run("correlate", "--html", "--sm", "90", "-o", page, exe)
check("correlate --html --sm 90 on a two-SM executable writes the page", r.returncode == 0 and os.path.getsize(page),
      r.stderr)

# 3. one message form; a .cu is no PTX
msgs = [run(*c, "--sm=80", exe).stderr.strip() for c in (["lines"], ["addr2line", "-e"], ["correlate"])]
check("--sm=80: lines, addr2line and correlate say 'no sm_80 image (it has sm_75, sm_90)'",
      all(x.endswith("no sm_80 image (it has sm_75, sm_90)") for x in msgs), str(msgs))
r = run("ptx-lines", SRC)
check("ptx-lines on a .cu exits 1 and says what to do", r.returncode == 1 and "nvcc -ptx" in r.stderr, r.stderr)

# 4. a library without line tables
lib = "/usr/local/cuda/lib64/libcurand.so"
if os.path.exists(lib):
    r = run("lines", lib)
    check("lines on libcurand: one line saying there are none", r.returncode == 0 and
          len(r.stdout.splitlines()) == 1 and "no line tables" in r.stdout, r.stdout[:300])
else:
    print(f"skip lines on a library: {lib} is not here")
T.done()
