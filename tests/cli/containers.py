"""Where fatbin containers are, built here:

1. A host executable (cc) holding two real fatbins as data, one in
   .rodata and one in .ldata, and decoys: the magic with a valid-looking
   header in .text and in .rodata, whose entries do not fit.  list finds
   exactly the two fatbins' containers (found by the scan), not the decoys;
   every image extracted from it equals the one extracted from the fatbin
   file itself; lines reads the embedded cubins.
2. An -rdc executable (nvcc -rdc=true, two units): containers in
   __nv_relfatbin and .nv_fatbin, each found by the walk and by a wrapper
   record.  extract writes one file per image, names never colliding, and
   every cubin equals one nvcc kept (--keep): the two -dc units and the
   device link.
3. A host program without device code: list notes it (exit 0), lines says
   so (exit 1); --sm=N that no image has is one error line, exit 1;
   list --headers is list without what decoding the images adds.
Without a C compiler or nvcc the parts needing them are skipped, saying so.

    python3 -m pytest -m containers
"""
import json
import os
import re
import shutil
import subprocess

import pytest

from suite_env import FIX, ROOT, run

pytestmark = pytest.mark.containers

SRC = os.path.join(ROOT, "tests", "src")
FB1 = os.path.join(FIX, "inline_G_speed.fatbin")  # three cubins, LZ4
EXE = os.path.join(FIX, "hostapp_lineinfo.exe")


def c_array(data):
    return ",".join(str(b) for b in data)


def extracted(path, out):
    r = run("extract", "-o", out, path)
    return r, r.stdout.split()


@pytest.fixture(scope="module")
def cc():
    found = shutil.which("cc") or shutil.which("gcc")
    if not found:
        pytest.skip("no C compiler to build the host program")
    return found


# --- 1. a host program with fatbins as data, and decoys ---
@pytest.fixture(scope="module")
def host(cc, tmp_path_factory):
    """(the executable, the fatbin in its .ldata)"""
    tmp = tmp_path_factory.mktemp("host")
    fb2 = str(tmp / "tiny.fatbin")
    if shutil.which("fatbinary"):
        subprocess.run(["fatbinary", "-64", f"--create={fb2}", "--compress-all",
                        f"--image3=kind=elf,sm=90,file={os.path.join(FIX, 'tiny_sm90_G.cubin')}"], check=True)
    else:
        shutil.copy(FB1, fb2)
    a, b = open(FB1, "rb").read(), open(fb2, "rb").read()
    decoy = "0x50,0xed,0x55,0xba,0x01,0x00,0x10,0x00,0x40,0,0,0,0,0,0,0"  # 64 bytes of "entries" that are not
    src = tmp / "host.c"
    src.write_text(f"""
__attribute__((aligned(8))) const unsigned char in_rodata[] = {{{c_array(a)}}};
__attribute__((aligned(8))) const unsigned char decoy_rodata[] = {{{decoy}, 2,0,1,1, 200,0,0,0}};
__attribute__((section(".ldata"), aligned(8))) unsigned char in_ldata[] = {{{c_array(b)}}};
__attribute__((used, noinline)) int decoy_text(int x)
{{
    __asm__ volatile(".byte {decoy}\\n.byte 0x02,0x00,0x01,0x01,0x40,0,0,0" ::: "memory");
    return x + 1;
}}
int main(void) {{ return in_rodata[1] + in_ldata[1] + decoy_rodata[0] + decoy_text(0); }}
""")
    exe = str(tmp / "host_with_fatbins")
    subprocess.run([cc, "-O1", "-o", exe, str(src)], check=True)
    return exe, fb2


@pytest.fixture(scope="module")
def host_list(host):
    r = run("list", "--json", host[0])
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)[0]


def test_host_scan(host, host_list):
    """the containers in .rodata and .ldata are found by the scan, the decoys in .text and .rodata are not"""
    n1 = len(json.loads(run("list", "--json", FB1).stdout)[0]["containers"])
    n2 = len(json.loads(run("list", "--json", host[1]).stdout)[0]["containers"])
    by_sec = sorted((c["section"], c["found_by"]) for c in host_list["containers"])
    assert by_sec == sorted([(".ldata", ["scan"])] * n2 + [(".rodata", ["scan"])] * n1)


def test_host_tags(host_list):
    """images tagged by section and container"""
    tags = [i["tag"] for i in host_list["images"]]
    assert all(re.fullmatch(r"\.(rodata|ldata)#\d+\.\d+", t) for t in tags) and len(set(tags)) == len(tags), tags


def test_host_extract(host, tmp_path):
    """every image extracted equals the one the fatbin file gives"""
    r1, ours = extracted(host[0], tmp_path / "x1")
    ra, fa = extracted(FB1, tmp_path / "xa")
    rb, fbb = extracted(host[1], tmp_path / "xb")
    assert r1.returncode == 0, r1.stderr
    assert len(ours) == len(fa) + len(fbb)
    assert sorted(open(p, "rb").read() for p in ours) == sorted(open(p, "rb").read() for p in fa + fbb)


def test_host_lines(host):
    """lines of the cubins in .rodata equal those of the fatbin file"""
    l1 = json.loads(run("lines", "--json", host[0]).stdout)
    l2 = json.loads(run("lines", "--json", FB1).stdout)
    mine = [x["sections"] for x in l1 if ".rodata#" in x["file"]]
    assert mine and mine == [x["sections"] for x in l2]


# --- 2. an -rdc executable ---
@pytest.fixture(scope="module")
def rdc(tmp_path_factory):
    """(the executable, its list --json, the directory nvcc kept its files in)"""
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    if not nvcc:
        pytest.skip("nvcc not found")
    d = tmp_path_factory.mktemp("rdc")
    keep = d / "keep"
    keep.mkdir()
    app = str(d / "app")
    subprocess.run([nvcc, "-rdc=true", "-arch=sm_90", "-lineinfo", "--keep", "--keep-dir", str(keep), "-o", app,
                    os.path.join(SRC, "app.cu"), os.path.join(SRC, "other.cu")], check=True, capture_output=True)
    doc, = json.loads(run("list", "--json", app).stdout)
    return app, doc, str(keep)


def test_rdc_containers(rdc):
    """containers in .nv_fatbin and __nv_relfatbin, each found by the walk and a wrapper"""
    cons = rdc[1]["containers"]
    assert {c["section"] for c in cons} == {".nv_fatbin", "__nv_relfatbin"} and \
        all(c["found_by"] == ["section", "wrapper"] for c in cons), cons


def test_rdc_extract_names(rdc, tmp_path):
    """extract writes one file per image, no two alike in name"""
    r, files = extracted(rdc[0], tmp_path / "x")
    images = [i for i in rdc[1]["images"] if i["image_size"] is not None]
    assert r.returncode == 0 and len(files) == len(set(files)) == len(images), r.stdout + r.stderr


def test_rdc_extract_kept(rdc, tmp_path):
    """every extracted cubin equals one nvcc kept (2 units, device link)"""
    r, files = extracted(rdc[0], tmp_path / "x")
    kept = [open(os.path.join(rdc[2], k), "rb").read() for k in os.listdir(rdc[2]) if k.endswith(".cubin")]
    cubins = [open(f, "rb").read() for f in files if f.endswith(".cubin")]
    assert len(cubins) == 3 and sorted(cubins) == sorted(kept), f"{len(cubins)} vs {len(kept)} kept"


# --- 3. no device code; an SM the input does not hold ---
@pytest.fixture(scope="module")
def plain(cc, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("plain")
    (tmp / "plain.c").write_text("int main(void) { return 0; }\n")
    subprocess.run([cc, "-o", str(tmp / "plain"), str(tmp / "plain.c")], check=True)
    return str(tmp / "plain")


def test_no_device_code_list(plain):
    """host program without device code: list notes it, exit 0"""
    r = run("list", plain)
    assert r.returncode == 0 and "0 images" in r.stdout and "note: no CUDA device code" in r.stderr, r.stderr


def test_no_device_code_lines(plain):
    """... lines: one error line, exit 1"""
    r = run("lines", plain)
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1 and "no CUDA device code" in r.stderr, r.stderr


@pytest.mark.parametrize("cmd", [["lines"], ["verify"], ["dump", "--line"], ["sections"], ["list"]], ids=" ".join)
def test_sm_absent(cmd):
    """--sm=86 on an sm_75/sm_90 executable: one error line naming what it has, exit 1"""
    r = run(*cmd, "--sm=86", EXE)
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1 and "no sm_86 image" in r.stderr and not r.stdout \
        or (cmd[0] == "list" and r.returncode == 1 and "no sm_86 image" in r.stderr), r.stderr + r.stdout[:100]


def test_list_headers():
    """list --headers prints list's lines without the decoded image sizes and debug sections"""
    full, head = run("list", EXE), run("list", "--headers", EXE)
    want = re.sub(r", image \d+ bytes(, no code)?\n", "\n", "".join(l for l in full.stdout.splitlines(True)
                                                             if "debug sections:" not in l))
    assert head.returncode == 0 and head.stdout == want and "debug sections" in full.stdout, head.stdout[:300]


@pytest.mark.parametrize("name", [f for f in sorted(os.listdir(FIX)) if f.endswith((".exe", ".o", ".fatbin", ".a"))])
def test_list_decodes_small(name):
    """list of a container far under 256 MiB unpacked decodes every image: as --decode, no note"""
    a, b = run("list", os.path.join(FIX, name)), run("list", "--decode", os.path.join(FIX, name))
    assert a.returncode == b.returncode and a.stdout == b.stdout and "not decoded," not in a.stdout and \
        "note:" not in a.stderr, a.stderr


def test_headers_decode_usage():
    """list --headers --decode: a usage error, exit 2"""
    r = run("list", "--headers", "--decode", EXE)
    assert r.returncode == 2 and "exclude" in r.stderr, r.stderr


def test_headers_bare_cubin():
    """list --headers of a bare cubin: the same (a cubin is its own header)"""
    f = os.path.join(FIX, [f for f in sorted(os.listdir(FIX)) if f.endswith(".cubin")][0])
    a, b = run("list", "--json", f), run("list", "--json", "--headers", f)
    assert a.returncode == 0 and a.stdout == b.stdout and '"debug_sections"' in a.stdout, b.stdout[:200]


def test_sm_with_space():
    """lines --sm 90 (a space) reads only the sm_90 images"""
    r = run("lines", "--sm", "90", EXE)
    assert r.returncode == 0 and "sm_90" in r.stdout and "sm_75" not in r.stdout, r.stderr


def test_sm_usage():
    """--sm=9x: usage error, exit 2"""
    assert run("lines", "--sm=9x", EXE).returncode == 2
