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

Skipped without nvcc.

    python3 -m pytest -m names tests/ref/check_names.py
"""
import json
import os
import subprocess

import pytest

from suite_env import CUDA_LIB64, CUDWARF, ROOT, require, run

pytestmark = pytest.mark.names

SRC = os.path.join(ROOT, "tests", "src", "names", "nbody.cu")
MODES = ("lineinfo", "G")
SCALE = {"_Z5scaleIfEvPT_S0_i", "_Z5scaleIdEvPT_S0_i"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """{mode: nbody.MODE.cubin for sm_90, "exe": the sm_75 + sm_90 -lineinfo executable}"""
    require("nvcc")
    tmp = tmp_path_factory.mktemp("names")
    out = {m: str(tmp / f"nbody.{m}.cubin") for m in MODES}
    for m in MODES:
        subprocess.run(["nvcc", "-arch=sm_90", f"-{m}", "-cubin", "-o", out[m], SRC], check=True)
    out["exe"] = str(tmp / "nbody")
    subprocess.run(["nvcc", "-gencode", "arch=compute_75,code=sm_75", "-gencode", "arch=compute_90,code=sm_90",
                    "-lineinfo", "-o", out["exe"], SRC], check=True)
    return out


# 1. names
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name,mangled", [("forces", "_Z6forcesPK6float4P6float3i"),
                                          ("forces(float4 const*, float3*, int)", "_Z6forcesPK6float4P6float3i"),
                                          ("void scale<float>(float*, float, int)", "_Z5scaleIfEvPT_S0_i")])
def test_name_answers_as_mangled(built, mode, name, mangled):
    """addr2line -f -i NAME+0x40 answers as the mangled name"""
    p = built[mode]
    w = run("addr2line", "-f", "-i", "-e", p, f"{mangled}+0x40")
    r = run("addr2line", "-f", "-i", "-e", p, f"{name}+0x40")
    assert r.returncode == 0 and r.stdout.strip() and "??" not in r.stdout, r.stdout + r.stderr
    assert r.stdout == w.stdout


@pytest.mark.parametrize("mode", MODES)
def test_misses_say_why(built, mode):
    """a name of two instantiations lists both, a typo names the nearest, past the end says so; exit 1"""
    r = run("addr2line", "-f", "--json", "-e", built[mode], "scale+0x10", "forcse+0x10", "forces+0x90000")
    j = json.loads(r.stdout) if r.stdout else []
    errs = [x.get("error") or "" for x in j]
    assert r.returncode == 1 and len(j) == 3 and r.stderr.count("\n") == 3, r.stdout + r.stderr
    assert "_Z5scaleIdEvPT_S0_i" in errs[0] and "_Z5scaleIfEvPT_S0_i" in errs[0], errs[0]
    assert "nearest: forces" in errs[1], errs[1]
    assert "past the end of _Z6forcesPK6float4P6float3i" in errs[2], errs[2]


@pytest.mark.parametrize("mode", MODES)
def test_correlate_short_name(built, mode):
    """correlate --function forces = the mangled name's"""
    a = run("correlate", "--json", "--function", "forces", built[mode])
    b = run("correlate", "--json", "--function", "_Z6forcesPK6float4P6float3i", built[mode])
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout


# 2. a template line: both instantiations
@pytest.mark.parametrize("mode", MODES)
def test_template_line_both_instantiations(built, mode):
    """a line of scale<T> lists both instantiations, their bytes adding up to the line's"""
    doc = json.loads(run("correlate", "--json", built[mode]).stdout)[0]
    shared = [x for x in doc["source_lines"] if len({f["function"] for f in x["functions"]} & SCALE) == 2]
    assert shared, "no line lists both instantiations"
    assert all(sum(f["sass_bytes"] for f in x["functions"]) == x["sass_bytes"] for x in doc["source_lines"])


def test_inlined_template_callers(built):
    """sq<T> (line 6) is inlined at line 35 by both scale<T>: its line names both
    callers, their bytes within the line's (-lineinfo)"""
    doc = json.loads(run("correlate", "--json", built["lineinfo"]).stdout)[0]
    calls = {(c["line"], c["function"]) for x in doc["source_lines"] if x["line"] == 6 for c in x["callers"]}
    assert {(35, f) for f in SCALE} <= calls, str(calls)
    assert all(sum(c["sass_bytes"] for c in x["callers"]) <= x["sass_bytes"] for x in doc["source_lines"])


def test_executable_no_code_images(built):
    """list marks the first container's images 'no code'"""
    r = run("list", "--json", built["exe"])
    assert r.returncode == 0, r.stderr
    nocode = [im["label"] for im in json.loads(r.stdout)[0]["images"] if im.get("has_code") is False]
    assert len(nocode) == 2, str(nocode)


@pytest.mark.parametrize("args,status", [(["correlate", "--function", "forces"], 0),
                                         (["correlate", "--json", "--function", "forcse"], 1)])
def test_executable_short_name_no_hang(built, args, status):
    # a short name in a multi-image input once waited on its own lock
    try:
        r = subprocess.run([CUDWARF, *args, built["exe"]], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("timed out")
    assert r.returncode == status, r.stderr[:200]


def test_correlate_html_two_sms(built, tmp_path):
    """correlate --html --sm 90 on a two-SM executable writes the page"""
    page = tmp_path / "page.html"
    r = run("correlate", "--html", "--sm", "90", "-o", page, built["exe"])
    assert r.returncode == 0 and page.stat().st_size, r.stderr


# 3. one message form; a .cu is no PTX
def test_missing_sm_message(built):
    """--sm=80: lines, addr2line and correlate say 'no sm_80 image (it has sm_75, sm_90)'"""
    msgs = [run(*c, "--sm=80", built["exe"]).stderr.strip() for c in (["lines"], ["addr2line", "-e"], ["correlate"])]
    assert all(x.endswith("no sm_80 image (it has sm_75, sm_90)") for x in msgs), str(msgs)


def test_ptx_lines_refuses_cu():
    """ptx-lines on a .cu exits 1 and says what to do"""
    r = run("ptx-lines", SRC)
    assert r.returncode == 1 and "nvcc -ptx" in r.stderr, r.stderr


# 4. a library without line tables
def test_library_without_lines():
    """lines on libcurand: one line saying there are none"""
    lib = os.path.join(CUDA_LIB64, "libcurand.so")
    if not os.path.exists(lib):
        pytest.skip(f"{lib} is not here")
    r = run("lines", lib)
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 1 and "no line tables" in r.stdout, r.stdout[:300]
