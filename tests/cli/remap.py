"""cudwarf remap: the paths change and nothing else does.

For every cubin (the fixtures, and the cubins tests/gen.sh compiled: -G and
-lineinfo, whole-program and -dc, sm_75/90/100; the sanitizer build takes
every eighth of those), with a rule that rewrites every absolute path
("/" -> "/remapped/..."), and with one that changes length both ways:
  - verify finds what it found in the input (0 errors for a clean input);
  - `lines --json`: the same tables and rows; the directories, file names
    and paths are the input's with the rule applied;
  - `dump --info --json`: the same DIEs, attributes and values, a unit's
    DW_AT_name/DW_AT_comp_dir with the rule applied, references compared
    by the DIE they name (offsets move), stmt_list by the table it names;
  - pubnames --check (and --types) passes where it passes on the input;
  - every byte outside the debug and relocation sections is the input's;
  - a rule that matches nothing gives the input byte for byte;
  - llvm-dwarfdump --verify (on a relocated copy) passes where the input's
    passes (one test over all the cubins).
nvlink -g links remapped -dc objects, and its output carries the new paths.
Fatbins (stored, LZ4, zstd) and host executables: every extracted cubin of
the output is what remap makes of the original's, the containers and
entries are the same (compression kept), an executable keeps its size and
every byte outside its containers; a container that would have to grow in
a host ELF is refused.

With --libs, NVIDIA's libcusparse (162 MB) streams through unchanged when
no rule matches.

    python3 -m pytest -m remap
    python3 -m pytest -m remap -k 'container or nvlink'
"""
import json
import os
import re
import shutil
import struct
import subprocess

import pytest

import cubin_bytes
import lines_json
from suite_env import CUDA_LIB64, FIX, LIBS, PREP, ROOT, SANITIZED, fixture_cubins, gen_cubins, run, short

pytestmark = pytest.mark.remap

# the sanitizer build takes every eighth compiled cubin (all kinds are among
# them): remap's answers are the normal build's to check, and the whole set
# under ASan was a third of CI's time
CUBINS = fixture_cubins() + (gen_cubins()[::8] if SANITIZED else gen_cubins())
RULESETS = [[("/", "/remapped/deeper/than/before/")], [("/proc/self/cwd", "/w"), ("/usr/local/cuda", "/cuda")]]
SHORT = [("/proc/self/cwd", "/p"), ("/usr/local/cuda", "/c")]


def remap(rules, out, path):
    return run("remap", *sum((["--prefix", f"{a}={b}"] for a, b in rules), []), "-o", out, path)


def apply(rules, s):
    if s is None:
        return s
    for old, new in rules:
        if s.startswith(old):
            return new + s[len(old):]
    return s


def lines_view(path, rules):
    r = run("lines", "--json", path)
    if r.returncode:
        return None
    out = []
    for img in json.loads(r.stdout):
        for sec in img["sections"]:
            for t in sec["tables"]:
                dirs = [apply(rules, d) for d in t["directories"]]
                files = [(apply(rules, f["name"]), f["dir"], f["mtime"], f["size"], apply(rules, f["path"]))
                         for f in t["files"]]
                rows = [(r["address"], r["file"], r["line"], r["column"], r["is_stmt"], r["end_sequence"],
                         r["context"], r["function"], r["symbol"]) for r in lines_json.rows(t)]
                out.append((sec["section"], dirs, files, rows))
    return out


REFS = ("DW_FORM_ref1", "DW_FORM_ref2", "DW_FORM_ref4", "DW_FORM_ref8", "DW_FORM_ref_udata", "DW_FORM_ref_addr")


def info_view(path, rules):
    """DIEs with references as DIE ordinals and unit root paths mapped."""
    r = run("dump", "--info", "--json", path)
    if r.returncode:
        return None
    out = []
    for img in json.loads(r.stdout):
        for sec in img["sections"]:
            ordinal = {}
            for u in sec["units"]:
                for d in u["dies"]:
                    ordinal[d["offset"]] = len(ordinal)
            for u in sec["units"]:
                for d in u["dies"]:
                    attrs = []
                    for a in d["attributes"]:
                        v = a.get("value")
                        if a["form"] in REFS:
                            v = ("die", ordinal.get(v))  # the JSON gives the section offset (docs/json.md)
                        elif a["name"] in ("DW_AT_name", "DW_AT_comp_dir") and d["depth"] == 0:
                            v = apply(rules, v)
                        elif a["name"] == "DW_AT_stmt_list":
                            v = "table"  # its table's rows are compared by lines_view
                        attrs.append((a["name"], a["form"], json.dumps(v), a.get("symbol"),
                                      None if a["name"] == "DW_AT_stmt_list" else a.get("addend")))
                    out.append((sec["section"], d["depth"], d["tag"], attrs))
    return out


def outside_same(a, b):
    """Every byte of a outside its debug sections (which the views and
    --check compare), relocation sections and section headers is in b."""
    da, db = open(a, "rb").read(), open(b, "rb").read()
    shoff = struct.unpack_from("<Q", da, 0x28)[0]
    sa, sb = cubin_bytes.sections(da), cubin_bytes.sections(db)
    if len(sa) != len(sb):
        return False
    keep = bytearray(len(da))
    for (na, ha), (nb, hb) in zip(sa, sb):
        if na != nb or ha[:4] != hb[:4] or ha[6:] != hb[6:]:
            return False  # a header changes in offset and size only
        if (ha[4], ha[5]) != (hb[4], hb[5]) or ha[1] in (4, 9, 0x70000082) or \
                re.match(r"^(\.nv\.merc)?\.(debug_|nv_debug)", na):
            continue  # moved or resized, relocations, debug sections: compared by the views and --check
        if ha[1] not in (8, 0x7000000a):  # NOBITS and shared memory hold no bytes
            keep[ha[4]:ha[4] + ha[5]] = b"\1" * min(ha[5], len(da) - ha[4])
    moved = {(h[4], h[5]) for (_, h), (_, h2) in zip(sa, sb) if (h[4], h[5]) != (h2[4], h2[5])}
    for off, size in moved:
        keep[off:off + size] = b"\0" * size
    keep[shoff:shoff + 64 * len(sa)] = b"\0" * (64 * len(sa))
    keep[0:64] = b"\1" * 64
    return all(da[i] == db[i] for i in range(len(da)) if keep[i]) and len(db) >= len(da)


@pytest.mark.parametrize("path", CUBINS, ids=short)
def test_cubin(path, tmp_path, check):
    v_in = run("verify", path)
    names_in = [run("pubnames", *t, "--check", path).returncode == 0 for t in ([], ["--types"])]
    for k, rules in enumerate(RULESETS):
        out = str(tmp_path / f"{k}.cubin")
        r = remap(rules, out, path)
        if not check(f"rules {k}: remap runs", r.returncode == 0, r.stderr.strip()):
            continue
        # the same verdict and counts (a finding's offset moves with the bytes after a path)
        v_out = run("verify", out)
        check(f"rules {k}: verify says of the output what it says of the input",
              v_out.returncode == v_in.returncode and
              v_out.stdout.splitlines()[-1:] == [x.replace(path, out) for x in v_in.stdout.splitlines()[-1:]],
              v_out.stdout.strip()[-200:])
        check(f"rules {k}: lines --json = the input's, paths rewritten by the rule",
              lines_view(out, []) == lines_view(path, rules))
        check(f"rules {k}: dump --info --json = the input's (references by target, unit paths rewritten)",
              info_view(out, []) == info_view(path, rules))
        for t, ok_in in zip(([], ["--types"]), names_in):
            if ok_in:
                check(f"rules {k}: pubnames {' '.join(t)} --check passes as on the input",
                      run("pubnames", *t, "--check", out).returncode == 0)
        check(f"rules {k}: every byte outside the debug and relocation sections is the input's",
              outside_same(path, out))
    same = str(tmp_path / "same.cubin")
    r = remap([("/no/such/prefix", "/x")], same, path)
    check("a rule that matches nothing gives the input byte for byte",
          r.returncode == 0 and open(same, "rb").read() == open(path, "rb").read(), r.stderr)


def llvm_verify(path, tmp):
    rel = os.path.join(tmp, os.path.basename(path) + ".rel")
    subprocess.run([PREP, "-r", "-e", "-x", path, rel], capture_output=True)
    return subprocess.run(["llvm-dwarfdump", "--verify", rel], capture_output=True, text=True).returncode == 0


def test_llvm_verify(tmp_path, check):
    """llvm-dwarfdump --verify passes on the output where it passes on the input"""
    if not shutil.which("llvm-dwarfdump"):
        pytest.skip("llvm-dwarfdump is not installed")
    for path in CUBINS:
        if not llvm_verify(path, tmp_path):
            continue
        for k, rules in enumerate(RULESETS):
            out = str(tmp_path / f"{k}_{os.path.basename(path)}")
            r = remap(rules, out, path)
            check(f"{short(path)} rules {k}", r.returncode == 0 and llvm_verify(out, tmp_path), r.stderr)
    assert check.count, "llvm-dwarfdump --verify passes on none of the inputs"


# nvlink -g links remapped -dc objects; its line tables carry the new paths
LINK3 = sorted({os.path.dirname(c) for c in CUBINS if c.endswith(".rdc.cubin") and "/link3/" in c})
NO_LINK3 = ("no link3 -dc objects among the cubins (tests/gen.sh makes them; the sanitizer run takes every "
            "eighth cubin, and the normal run links them)")


@pytest.mark.parametrize("d", LINK3 or [pytest.param(None, marks=pytest.mark.skip(reason=NO_LINK3))],
                         ids=lambda d: short(d) if d else "none")
def test_nvlink(d, tmp_path):
    if not shutil.which("nvlink"):
        pytest.skip("nvlink is not installed")
    arch = [p for p in d.split("/") if p.startswith("sm_")][0]
    outs = []
    for o in sorted(c for c in CUBINS if os.path.dirname(c) == d and c.endswith(".rdc.cubin")):
        outs.append(str(tmp_path / os.path.basename(o)))
        remap([("/", "/remapped/")], outs[-1], o)
    lk = str(tmp_path / "link.cubin")
    r = subprocess.run(["nvlink", "-g", f"-arch={arch}", "-o", lk, *outs], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[:300]
    paths = [f[4] for s in (lines_view(lk, []) or []) for f in s[2]]
    # every absolute path in its line tables is remapped
    assert paths and [p for p in paths if p.startswith("/") and not p.startswith("/remapped/")] == []


# --- containers: each image comes out as remap makes it of the bare cubin ---
def extracted(path, d):
    """{label tag: bytes} of the ELF images extract writes."""
    os.makedirs(d)
    run("extract", "--elf", "-o", d, path)
    return {f.split(".", 1)[1]: open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))}


def container_checks(check, tmp, path, rules, host=False):
    out = os.path.join(tmp, "out_" + os.path.basename(path))
    r = remap(rules, out, path)
    assert r.returncode == 0, f"remap: {r.stderr}"
    got = extracted(out, os.path.join(tmp, "x"))
    orig = extracted(path, os.path.join(tmp, "o"))
    want = {}
    for k, data in orig.items():
        src, dst = os.path.join(tmp, "src.cubin"), os.path.join(tmp, "dst.cubin")
        open(src, "wb").write(data)
        remap(rules, dst, src)
        want[k] = open(dst, "rb").read()
    changed = sum(want[k] != orig[k] for k in orig)
    check(f"every extracted cubin = remap of the original's ({len(orig)} images, {changed} changed)",
          orig and got == want and changed, f"{sorted(got)} vs {sorted(want)}")
    lo, li = json.loads(run("list", "--json", out).stdout)[0], json.loads(run("list", "--json", path).stdout)[0]
    kinds = lambda d: [(i["kind"], i["sm"], i["compression"], i["label"].replace(out, path)) for i in d["images"]]
    check("the same containers and entries, compression kept", kinds(lo) == kinds(li))
    if host:
        a, b = open(path, "rb").read(), open(out, "rb").read()
        spans = [(c["file_offset"], c["file_offset"] + c["size"]) for c in li["containers"]]
        check("same size, every byte outside the containers the input's",
              len(a) == len(b) and all(a[i] == b[i] for i in range(len(a)) if not any(x <= i < y for x, y in spans)))


@pytest.mark.parametrize("path,rules,host", [
    pytest.param(os.path.join(FIX, "inline_G_speed.fatbin"), RULESETS[0], False, id="fatbin-lz4"),
    pytest.param(os.path.join(FIX, "hostapp_lineinfo.exe"), SHORT, True, id="host-executable-zstd-stored")])
def test_container(path, rules, host, tmp_path, check):
    container_checks(check, str(tmp_path), path, rules, host)


def test_container_that_would_grow(tmp_path):
    """a host executable, a longer path: refused (exit 1, one line, no output file)"""
    out = tmp_path / "out.exe"
    r = remap([("/proc/self/cwd", "/a/much/longer/directory/than/before")], out, os.path.join(FIX, "hostapp_lineinfo.exe"))
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and "grow" in r.stderr and \
        not out.exists(), r.stderr


@pytest.mark.parametrize("flags", [[], ["--compress-all"]], ids=["stored", "zstd"])
def test_fatbinary_fatbin(flags, tmp_path, check):
    if not shutil.which("fatbinary"):
        pytest.skip("fatbinary is not installed")
    fb = str(tmp_path / "fb.fatbin")
    subprocess.run(["fatbinary", "-64", f"--create={fb}", *flags,
                    f"--image3=kind=elf,sm=90,file={os.path.join(FIX, 'tiny_sm90_G.cubin')}",
                    f"--image3=kind=elf,sm=75,file={os.path.join(FIX, 'calls_sm75_G.cubin')}"],
                   check=True, capture_output=True)
    container_checks(check, str(tmp_path), fb, RULESETS[0])


def test_nvcc_executable(tmp_path, check):
    """nvcc -G executable (sm_75 + sm_90)"""
    if not shutil.which("nvcc"):
        pytest.skip("nvcc is not installed")
    app = str(tmp_path / "app")
    r = subprocess.run(["nvcc", "-G", "-gencode", "arch=compute_90,code=sm_90", "-gencode",
                        "arch=compute_75,code=sm_75", "-o", app, os.path.join(ROOT, "tests", "src", "app.cu")],
                       capture_output=True, text=True)
    assert r.returncode == 0, f"nvcc -G: {r.stderr[:300]}"
    container_checks(check, str(tmp_path), app, SHORT, host=True)


def test_library_unchanged(tmp_path):
    """libcusparse.so.12 (162 MB, 1,036 cubins): no rule matches, the output is the input"""
    lib = os.path.join(CUDA_LIB64, "libcusparse.so.12")
    if not LIBS:
        pytest.skip("NVIDIA's libraries are read with --libs")
    if not os.path.exists(lib):
        pytest.skip(f"{lib} is not installed")
    out = str(tmp_path / "lib.so")
    r = remap([("/no/such/prefix", "/x")], out, lib)
    assert r.returncode == 0 and subprocess.run(["cmp", "-s", lib, out]).returncode == 0, r.stderr


def test_no_prefix(tmp_path):
    r = run("remap", "-o", tmp_path / "x", CUBINS[0])
    assert r.returncode == 2 and "--prefix" in r.stderr


def test_empty_old_prefix(tmp_path):
    r = run("remap", "--prefix", "=x", "-o", tmp_path / "x", CUBINS[0])
    assert r.returncode == 2
