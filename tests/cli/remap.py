#!/usr/bin/env python3
"""cudwarf remap: the paths change and nothing else does.

For every cubin given (the fixtures; -G and -lineinfo, whole-program and
-dc, sm_75/90/100 from tests/gen.sh), with a rule that rewrites every
absolute path ("/" -> "/remapped/..."), and with one that changes length
both ways:
  - verify finds what it found in the input (0 errors for a clean input);
  - `lines --json`: the same tables and rows; the directories, file names
    and paths are the input's with the rule applied;
  - `dump --info --json`: the same DIEs, attributes and values, a unit's
    DW_AT_name/DW_AT_comp_dir with the rule applied, references compared
    by the DIE they name (offsets move), stmt_list by the table it names;
  - llvm-dwarfdump --verify (on a relocated copy) passes where the input's
    passes;
  - every byte outside the debug and relocation sections is the input's;
  - a rule that matches nothing gives the input byte for byte.
nvlink -g links remapped -dc objects, and its output carries the new paths.
Fatbins (stored, LZ4, zstd) and host executables: every extracted cubin of
the output is what remap makes of the original's, the containers and
entries are the same (compression kept), an executable keeps its size and
every byte outside its containers; a container that would have to grow in
a host ELF is refused.

With --libs, NVIDIA's libcusparse (162 MB) streams through unchanged when
no rule matches.

usage: remap.py CUDWARF CUBIN_PREP [--libs] CUBIN...
"""
import json, os, re, shutil, struct, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from tally import Tally  # noqa: E402
import lines_json  # noqa: E402

CUDWARF, PREP = sys.argv[1], sys.argv[2]
LIBS = "--libs" in sys.argv
CUBINS = [a for a in sys.argv[3:] if a != "--libs"]
T = Tally("remap")
tmp = tempfile.mkdtemp()


def cw(*a):
    return subprocess.run([CUDWARF, *a], capture_output=True, text=True)


def apply(rules, s):
    if s is None:
        return s
    for old, new in rules:
        if s.startswith(old):
            return new + s[len(old):]
    return s


def lines_view(path, rules):
    r = cw("lines", "--json", path)
    out = []
    if r.returncode:
        return None
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


def info_view(path, rules):
    """DIEs with references as DIE ordinals and unit root paths mapped."""
    r = cw("dump", "--info", "--json", path)
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
                        if a["form"] in ("DW_FORM_ref1", "DW_FORM_ref2", "DW_FORM_ref4", "DW_FORM_ref8",
                                         "DW_FORM_ref_udata", "DW_FORM_ref_addr"):
                            # the JSON gives the section offset (docs/json.md)
                            v = ("die", ordinal.get(v))
                        elif a["name"] in ("DW_AT_name", "DW_AT_comp_dir") and d["depth"] == 0:
                            v = apply(rules, v)
                        elif a["name"] == "DW_AT_stmt_list":
                            v = "table"  # its table's rows are compared by lines_view
                        attrs.append((a["name"], a["form"], json.dumps(v), a.get("symbol"),
                                      None if a["name"] == "DW_AT_stmt_list" else a.get("addend")))
                    out.append((sec["section"], d["depth"], d["tag"], attrs))
    return out


def sections(path):
    d = open(path, "rb").read()
    shoff = struct.unpack_from("<Q", d, 0x28)[0]
    shnum, shstrndx = struct.unpack_from("<HH", d, 0x3c)
    hs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + 64 * i) for i in range(shnum)]
    so = hs[shstrndx][4]
    return d, shoff, [(d[so + h[0]:d.index(b"\0", so + h[0])].decode(), h) for h in hs]


def outside_same(a, b):
    """Every byte of a outside its debug sections (which the views and
    --check compare), relocation sections and section headers is in b."""
    da, shoff, sa = sections(a)
    db, _, sb = sections(b)
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


def llvm_verify(path):
    rel = os.path.join(tmp, os.path.basename(path) + ".rel")
    subprocess.run([PREP, "-r", "-e", "-x", path, rel], capture_output=True)
    r = subprocess.run(["llvm-dwarfdump", "--verify", rel], capture_output=True, text=True)
    return r.returncode == 0


RULESETS = [[("/", "/remapped/deeper/than/before/")], [("/proc/self/cwd", "/w"), ("/usr/local/cuda", "/cuda")]]
bad = {k: [] for k in ("verify", "lines", "info", "llvm", "bytes", "identity", "run", "names")}
llvm_checked = 0
for c in CUBINS:
    base = os.path.basename(c)
    v_in = cw("verify", c)
    llvm_in = llvm_verify(c) if shutil.which("llvm-dwarfdump") else None
    names_in = [cw("pubnames", *t, "--check", c).returncode == 0 for t in ([], ["--types"])]
    for k, rules in enumerate(RULESETS):
        out = os.path.join(tmp, f"{k}_{base}")
        r = cw("remap", *sum((["--prefix", f"{a}={b}"] for a, b in rules), []), "-o", out, c)
        if r.returncode:
            bad["run"].append(f"{c}: {r.stderr.strip()}")
            continue
        # the same verdict and counts (a finding's offset moves with the bytes after a path)
        v_out = cw("verify", out)
        if v_out.returncode != v_in.returncode or \
                v_out.stdout.splitlines()[-1:] != [x.replace(c, out) for x in v_in.stdout.splitlines()[-1:]]:
            bad["verify"].append(f"{c}: {v_out.stdout.strip()[-200:]}")
        if lines_view(out, []) != lines_view(c, rules):
            bad["lines"].append(c)
        if info_view(out, []) != info_view(c, rules):
            bad["info"].append(c)
        if llvm_in:
            llvm_checked += 1
            if not llvm_verify(out):
                bad["llvm"].append(c)
        for t, ok_in in zip(([], ["--types"]), names_in):
            if ok_in and cw("pubnames", *t, "--check", out).returncode:
                bad["names"].append(f"{c} {t}")
        if not outside_same(c, out):
            bad["bytes"].append(c)
    same = os.path.join(tmp, "same_" + base)
    r = cw("remap", "--prefix", "/no/such/prefix=/x", "-o", same, c)
    if r.returncode or open(same, "rb").read() != open(c, "rb").read():
        bad["identity"].append(c)

n = len(CUBINS)
T.check(f"remap runs on {n} cubins, two rule sets each", n and not bad["run"], bad["run"][:3])
T.check(f"{n} cubins: verify says of the output what it says of the input", not bad["verify"], bad["verify"][:3])
T.check(f"{n} cubins: lines --json = the input's, paths rewritten by the rule", not bad["lines"], bad["lines"][:3])
T.check(f"{n} cubins: dump --info --json = the input's (references by target, unit paths rewritten)",
        not bad["info"], bad["info"][:3])
T.check(f"llvm-dwarfdump --verify passes on the output where it passes on the input ({llvm_checked} outputs)",
        llvm_checked and not bad["llvm"], bad["llvm"][:3])
T.check(f"{n} cubins: pubnames --check (and --types) passes on the output where it passes on the input",
        not bad["names"], bad["names"][:3])
T.check(f"{n} cubins: every byte outside the debug and relocation sections is the input's", not bad["bytes"],
        bad["bytes"][:3])
T.check(f"{n} cubins: a rule that matches nothing gives the input byte for byte", not bad["identity"],
        bad["identity"][:3])

# nvlink -g links remapped -dc objects; its line tables carry the new paths
sets = {}
for c in CUBINS:
    if c.endswith(".rdc.cubin") and "/link3/" in c:
        sets.setdefault(os.path.dirname(c), []).append(c)
linked = 0
if shutil.which("nvlink"):
    for d, objs in sorted(sets.items()):
        arch = [p for p in d.split("/") if p.startswith("sm_")][0]
        outs = []
        for o in sorted(objs):
            out = os.path.join(tmp, f"dc_{arch}_{os.path.basename(d)}_{os.path.basename(o)}")
            cw("remap", "--prefix", "/=/remapped/", "-o", out, o)
            outs.append(out)
        lk = os.path.join(tmp, f"link_{arch}_{os.path.basename(d)}.cubin")
        r = subprocess.run(["nvlink", "-g", f"-arch={arch}", "-o", lk, *outs], capture_output=True, text=True)
        paths = [f[4] for s in (lines_view(lk, []) or []) for f in s[2]] if r.returncode == 0 else []
        ok = r.returncode == 0 and paths and all(p.startswith("/remapped/") or not p.startswith("/")
                                                  for p in paths)
        T.check(f"nvlink -g -arch={arch} links the remapped {os.path.basename(d)} objects; every absolute path "
                f"in its line tables is remapped ({len(paths)} files)", ok, r.stderr[:300])
        linked += 1
if not linked:
    print("skip nvlink links of remapped objects: " +
          ("nvlink is not installed" if not shutil.which("nvlink") else
           "no link3 -dc objects among the cubins given (tests/gen.sh makes them; the sanitizer run takes "
           "every eighth cubin, and the normal run links them)"))

# --- containers: each image comes out as remap makes it of the bare cubin ---


def extracted(path, d):
    """{label tag: bytes} of the ELF images extract writes."""
    os.makedirs(d)
    cw("extract", "--elf", "-o", d, path)
    return {f.split(".", 1)[1]: open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))}


def container_case(name, path, rules, must_fit=True):
    out = os.path.join(tmp, f"c{len(os.listdir(tmp))}_" + os.path.basename(path))
    r = cw("remap", *sum((["--prefix", f"{a}={b}"] for a, b in rules), []), "-o", out, path)
    if not must_fit:
        T.check(f"{name}: a container that would grow is refused (exit 1, one line, no output file)",
                r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and "grow" in r.stderr
                and not os.path.exists(out), r.stderr)
        return
    if not T.check(f"{name}: remap runs", r.returncode == 0, r.stderr):
        return
    tag = os.path.basename(path)
    got = extracted(out, os.path.join(tmp, "x_" + tag))
    orig = extracted(path, os.path.join(tmp, "o_" + tag))
    want = {}
    for k, data in orig.items():
        src, dst = os.path.join(tmp, "src.cubin"), os.path.join(tmp, "dst.cubin")
        open(src, "wb").write(data)
        cw("remap", *sum((["--prefix", f"{a}={b}"] for a, b in rules), []), "-o", dst, src)
        want[k] = open(dst, "rb").read()
    changed = sum(want[k] != orig[k] for k in orig)
    T.check(f"{name}: every extracted cubin = remap of the original's ({len(orig)} images, {changed} changed)",
            orig and got == want and changed, f"{sorted(got)} vs {sorted(want)}")
    lo, li = json.loads(cw("list", "--json", out).stdout)[0], json.loads(cw("list", "--json", path).stdout)[0]
    kinds = lambda d: [(i["kind"], i["sm"], i["compression"], i["label"].replace(out, path)) for i in d["images"]]
    T.check(f"{name}: the same containers and entries, compression kept", kinds(lo) == kinds(li))
    if path.endswith(".exe") or "/app" in path:
        a, b = open(path, "rb").read(), open(out, "rb").read()
        spans = [(c["file_offset"], c["file_offset"] + c["size"]) for c in li["containers"]]
        outside = all(a[i] == b[i] for i in range(len(a)) if not any(x <= i < y for x, y in spans))
        T.check(f"{name}: same size, every byte outside the containers the input's",
                len(a) == len(b) and outside)


FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")
SHORT = [("/proc/self/cwd", "/p"), ("/usr/local/cuda", "/c")]
container_case("fatbin (lz4)", os.path.join(FIX, "inline_G_speed.fatbin"), RULESETS[0])
container_case("host executable (lineinfo, zstd and stored)", os.path.join(FIX, "hostapp_lineinfo.exe"), SHORT)
container_case("host executable, a longer path", os.path.join(FIX, "hostapp_lineinfo.exe"),
               [("/proc/self/cwd", "/a/much/longer/directory/than/before")], must_fit=False)
if shutil.which("fatbinary"):
    for mode, flags in (("stored", []), ("zstd", ["--compress-all"])):
        fb = os.path.join(tmp, f"fb_{mode}.fatbin")
        subprocess.run(["fatbinary", "-64", f"--create={fb}", *flags,
                        f"--image3=kind=elf,sm=90,file={os.path.join(FIX, 'tiny_sm90_G.cubin')}",
                        f"--image3=kind=elf,sm=75,file={os.path.join(FIX, 'calls_sm75_G.cubin')}"],
                       check=True, capture_output=True)
        container_case(f"fatbinary fatbin ({mode})", fb, RULESETS[0])
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "app.cu")
if shutil.which("nvcc"):
    app = os.path.join(tmp, "app")
    r = subprocess.run(["nvcc", "-G", "-gencode", "arch=compute_90,code=sm_90", "-gencode",
                        "arch=compute_75,code=sm_75", "-o", app, SRC], capture_output=True, text=True)
    if T.check("nvcc -G builds a two-SM executable", r.returncode == 0, r.stderr[:300]):
        container_case("nvcc -G executable (sm_75 + sm_90)", app, SHORT)
else:
    print("skip nvcc-built executable: nvcc not found")

lib = "/usr/local/cuda/lib64/libcusparse.so.12"
if LIBS and os.path.exists(lib):
    out = os.path.join(tmp, "lib.so")
    r = cw("remap", "--prefix", "/no/such/prefix=/x", "-o", out, lib)
    same = r.returncode == 0 and subprocess.run(["cmp", "-s", lib, out]).returncode == 0
    T.check("libcusparse.so.12 (162 MB, 1,036 cubins): no rule matches, the output is the input", same, r.stderr)
    os.remove(out) if os.path.exists(out) else None
elif LIBS:
    print(f"skip {lib}: not installed")

r = cw("remap", "-o", os.path.join(tmp, "x"), CUBINS[0] if CUBINS else "x")
T.check("no --prefix: usage error (exit 2)", r.returncode == 2 and "--prefix" in r.stderr)
r = cw("remap", "--prefix", "=x", "-o", os.path.join(tmp, "x"), CUBINS[0] if CUBINS else "x")
T.check("--prefix with an empty OLD: usage error (exit 2)", r.returncode == 2)
shutil.rmtree(tmp)
T.done()
