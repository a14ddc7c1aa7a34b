#!/usr/bin/env python3
"""Where fatbin containers are, built here:

1. A host executable (gcc) holding two real fatbins as data, one in
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

usage: containers.py CUDWARF FIXTURES_DIR
"""
import json, os, re, shutil, subprocess, sys, tempfile

CUDWARF, FIX = sys.argv[1], sys.argv[2]
SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
tmp = tempfile.mkdtemp()
passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    passed += bool(cond)
    failed += not cond
    print(f"{'ok  ' if cond else 'FAIL'} {name}" + ("" if cond else f" {detail}"))


def run(*a, **k):
    return subprocess.run([CUDWARF, *a], capture_output=True, text=True, **k)


def c_array(data):
    return ",".join(str(b) for b in data)


def extracted(path, out):
    r = run("extract", "-o", out, path)
    return r, r.stdout.split()


cc = shutil.which("cc") or shutil.which("gcc")
fb1 = os.path.join(FIX, "inline_G_speed.fatbin")  # three cubins, LZ4
fb2 = os.path.join(tmp, "tiny.fatbin")
if shutil.which("fatbinary"):
    subprocess.run(["fatbinary", "-64", f"--create={fb2}", "--compress-all",
                    f"--image3=kind=elf,sm=90,file={os.path.join(FIX, 'tiny_sm90_G.cubin')}"], check=True)
else:
    shutil.copy(fb1, fb2)
if not cc:
    print("skip 1: no C compiler to build the host program")
else:
    a, b = open(fb1, "rb").read(), open(fb2, "rb").read()
    decoy = "0x50,0xed,0x55,0xba,0x01,0x00,0x10,0x00,0x40,0,0,0,0,0,0,0"  # 64 bytes of "entries" that are not
    src = os.path.join(tmp, "host.c")
    with open(src, "w") as f:
        f.write(f"""
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
    exe = os.path.join(tmp, "host_with_fatbins")
    subprocess.run([cc, "-O1", "-o", exe, src], check=True)
    r = run("list", "--json", exe)
    doc = json.loads(r.stdout)[0] if r.returncode == 0 else {"containers": [], "images": []}
    cons = doc["containers"]
    by_sec = sorted((c["section"], c["found_by"]) for c in cons)
    n1 = len(json.loads(run("list", "--json", fb1).stdout)[0]["containers"])
    n2 = len(json.loads(run("list", "--json", fb2).stdout)[0]["containers"])
    check("host program: the containers in .rodata and .ldata are found by the scan, the decoys in .text and "
          ".rodata are not", r.returncode == 0 and by_sec == sorted([(".ldata", ["scan"])] * n2 +
                                                                     [(".rodata", ["scan"])] * n1), f"{by_sec} {r.stderr}")
    tags = [i["tag"] for i in doc["images"]]
    check("host program: images tagged by section and container", all(re.fullmatch(r"\.(rodata|ldata)#\d+\.\d+", t)
                                                                       for t in tags) and len(set(tags)) == len(tags), tags)
    r1, ours = extracted(exe, os.path.join(tmp, "x1"))
    ra, fa = extracted(fb1, os.path.join(tmp, "xa"))
    rb, fbb = extracted(fb2, os.path.join(tmp, "xb"))
    same = sorted(open(p, "rb").read() for p in ours) == sorted(open(p, "rb").read() for p in fa + fbb)
    check("host program: every image extracted equals the one the fatbin file gives", r1.returncode == 0 and same and
          len(ours) == len(fa) + len(fbb), r1.stderr)
    l1 = json.loads(run("lines", "--json", exe).stdout)
    l2 = json.loads(run("lines", "--json", fb1).stdout)
    mine = [x["sections"] for x in l1 if ".rodata#" in x["file"]]
    check(f"host program: lines of the {len(mine)} cubins in .rodata equal those of the fatbin file",
          mine and mine == [x["sections"] for x in l2])

# --- 2. an -rdc executable ---
nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
if not nvcc:
    print("skip 2: nvcc not found")
else:
    d = os.path.join(tmp, "rdc")
    keep = os.path.join(d, "keep")
    os.makedirs(keep)
    app = os.path.join(d, "app")
    subprocess.run([nvcc, "-rdc=true", "-arch=sm_90", "-lineinfo", "--keep", "--keep-dir", keep, "-o", app,
                    os.path.join(SRC, "app.cu"), os.path.join(SRC, "other.cu")], check=True, capture_output=True)
    doc, = json.loads(run("list", "--json", app).stdout)
    secs = {c["section"] for c in doc["containers"]}
    check("-rdc executable: containers in .nv_fatbin and __nv_relfatbin, each found by the walk and a wrapper",
          secs == {".nv_fatbin", "__nv_relfatbin"} and all(c["found_by"] == ["section", "wrapper"]
                                                            for c in doc["containers"]), doc["containers"])
    r, files = extracted(app, os.path.join(d, "x"))
    images = [i for i in doc["images"] if i["image_size"] is not None]
    kept = [open(os.path.join(keep, k), "rb").read() for k in os.listdir(keep) if k.endswith(".cubin")]
    cubins = [open(f, "rb").read() for f in files if f.endswith(".cubin")]
    check(f"-rdc executable: extract writes one file per image ({len(images)}), no two alike in name",
          r.returncode == 0 and len(files) == len(set(files)) == len(images), r.stdout + r.stderr)
    check(f"-rdc executable: every extracted cubin ({len(cubins)}) equals one nvcc kept (2 units, device link)",
          len(cubins) == 3 and sorted(cubins) == sorted(kept), f"{len(cubins)} vs {len(kept)} kept")

# --- 3. no device code; an SM the input does not hold ---
if cc:
    src = os.path.join(tmp, "plain.c")
    open(src, "w").write("int main(void) { return 0; }\n")
    plain = os.path.join(tmp, "plain")
    subprocess.run([cc, "-o", plain, src], check=True)
    r = run("list", plain)
    check("host program without device code: list notes it, exit 0",
          r.returncode == 0 and "0 images" in r.stdout and "note: no CUDA device code" in r.stderr, r.stderr)
    r = run("lines", plain)
    check("... lines: one error line, exit 1", r.returncode == 1 and len(r.stderr.splitlines()) == 1 and
          "no CUDA device code" in r.stderr, r.stderr)
exe = os.path.join(FIX, "hostapp_lineinfo.exe")
for cmd in (["lines"], ["verify"], ["dump", "--line"], ["sections"], ["list"]):
    r = run(*cmd, "--sm=86", exe)
    check(f"{cmd[0]} --sm=86 on an sm_75/sm_90 executable: one error line naming what it has, exit 1",
          r.returncode == 1 and len(r.stderr.splitlines()) == 1 and "no sm_86 image" in r.stderr and not r.stdout
          or (cmd[0] == "list" and r.returncode == 1 and "no sm_86 image" in r.stderr), r.stderr + r.stdout[:100])
full, head = run("list", exe), run("list", "--headers", exe)
want = re.sub(r", image \d+ bytes(, no code)?\n", "\n", "".join(l for l in full.stdout.splitlines(True)
                                                         if "debug sections:" not in l))
check("list --headers prints list's lines without the decoded image sizes and debug sections",
      head.returncode == 0 and head.stdout == want and "debug sections" in full.stdout, head.stdout[:300])
for f in sorted(os.listdir(FIX)):
    if f.endswith((".exe", ".o", ".fatbin", ".a")):
        a, b = run("list", os.path.join(FIX, f)), run("list", "--decode", os.path.join(FIX, f))
        check(f"list of {f} (far under 256 MiB unpacked) decodes every image: as --decode, no note",
              a.returncode == b.returncode and a.stdout == b.stdout and "not decoded," not in a.stdout and
              "note:" not in a.stderr, a.stderr)
r = run("list", "--headers", "--decode", exe)
check("list --headers --decode: a usage error, exit 2", r.returncode == 2 and "exclude" in r.stderr, r.stderr)
for f in [f for f in sorted(os.listdir(FIX)) if f.endswith(".cubin")][:1]:
    a, b = run("list", "--json", os.path.join(FIX, f)), run("list", "--json", "--headers", os.path.join(FIX, f))
    check(f"list --headers of a bare cubin ({f}): the same (a cubin is its own header)",
          a.returncode == 0 and a.stdout == b.stdout and '"debug_sections"' in a.stdout, b.stdout[:200])
r = run("lines", "--sm", "90", exe)
check("lines --sm 90 (a space) reads only the sm_90 images", r.returncode == 0 and "sm_90" in r.stdout and
      "sm_75" not in r.stdout, r.stderr)
r = run("lines", "--sm=9x", exe)
check("--sm=9x: usage error, exit 2", r.returncode == 2)
shutil.rmtree(tmp)
print(f"containers: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
