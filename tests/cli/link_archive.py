#!/usr/bin/env python3
"""Static libraries as link inputs, against nvlink -g (tests/gen.sh builds
them):
  - nvcc -lib of three -dc host objects, one of which nothing references:
    nvlink links every member in archive order, so nvlink's output must
    equal, under check_link.py, the link of the bare -dc cubins in that
    order, and `cudwarf link l3_a.o libl3.a` must be byte-identical to
    `cudwarf link l3_a.o l3_c.o unused.o l3_b.o`;
  - libcudadevrt.a: nvlink takes its member only for a program that
    references it (dynamic parallelism): with it, nvlink's output must
    check against the program plus the member's sm_90 image, and ours must
    equal the link with that image given explicitly; without it, against
    the program alone, and ours must equal the link without the library;
  - errors: libcudadevrt.a before any object with no --arch, a malformed
    member header, a thin archive, an archive with no device code: one
    message, exit 1, no output file.

usage: link_archive.py CUDWARF GEN_DIR
"""
import json, os, re, subprocess, sys, tempfile

cudwarf, gen = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
ar = os.path.join(gen, "archive")
if not os.path.exists(os.path.join(ar, "libl3.a")):
    print("skip link archives: not built (nvcc absent)")
    sys.exit(0)
fail = 0


def run(*args):
    return subprocess.run([cudwarf, *args], capture_output=True, text=True)


def check(ok, what, detail=""):
    global fail
    print(f"{'ok  ' if ok else 'FAIL'} {what}{': ' + detail.strip()[:400] if detail and not ok else ''}")
    fail += not ok


def same_file(a, b):
    return os.path.exists(a) and os.path.exists(b) and open(a, "rb").read() == open(b, "rb").read()


def check_link(spec):
    p = subprocess.run([sys.executable, os.path.join(here, "..", "ref", "check_link.py"), cudwarf, spec],
                       capture_output=True, text=True)
    return p.returncode == 0 and "0 failed" in p.stdout, p.stdout + p.stderr


host = os.path.join(gen, "hostobj")
bare = os.path.join(gen, "link3", "sm_90", "G")
with tempfile.TemporaryDirectory() as tmp:
    # nvcc -lib: every member, archive order
    lib = os.path.join(ar, "libl3.a")
    ok, out = check_link(os.path.join(ar, "lib.link.g.cubin") + "=" + ",".join(
        [os.path.join(bare, "l3_a.rdc.cubin"), os.path.join(bare, "l3_c.rdc.cubin"),
         os.path.join(ar, "unused.sm_90.rdc.cubin"), os.path.join(bare, "l3_b.rdc.cubin")]))
    check(ok, "nvlink -g l3_a.o libl3.a = the -dc cubins of all three members, archive order (check_link.py)", out)
    a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    p = run("link", "--arch", "sm_90", "-o", a, os.path.join(host, "l3_a.o"), lib)
    q = run("link", "--arch", "sm_90", "-o", b, *[os.path.join(host, "l3_a.o"), os.path.join(host, "l3_c.o"),
                                                  os.path.join(ar, "unused.o"), os.path.join(host, "l3_b.o")])
    check(p.returncode == 0 and q.returncode == 0 and same_file(a, b),
          "cudwarf link l3_a.o libl3.a = cudwarf link of its members in archive order, byte for byte",
          p.stderr + q.stderr)
    p = run("link", "-o", os.path.join(tmp, "c"), os.path.join(bare, "l3_a.rdc.cubin"), lib)
    check(p.returncode == 0, "no --arch: the library's SM follows the cubin before it", p.stderr)
    listing = run("list", "--json", lib)
    images = json.loads(listing.stdout)[0]["images"] if listing.returncode == 0 else []
    check(listing.returncode == 0 and '"type":"archive"' in listing.stdout and
          sum(i.get("member") == "unused.o" for i in images) == 2, "list: an archive, images named by member "
          "(unused.o: its sm_80 and sm_90 images)", listing.stdout[:300] + listing.stderr)

    devrt = os.path.join(ar, "libcudadevrt.a")
    if not os.path.exists(devrt):
        print("skip libcudadevrt.a: not found beside nvcc")
    else:
        x = run("extract", "-o", os.path.join(tmp, "devrt"), devrt)
        img = [f for f in x.stdout.split() if f.endswith("sm_90.cubin")]
        check(x.returncode == 0 and len(img) == 1, "extract: libcudadevrt.a's sm_90 image", x.stdout + x.stderr)
        if img:
            cdp = os.path.join(ar, "cdp.rdc.cubin")
            ok, out = check_link(os.path.join(ar, "cdp.link.g.cubin") + "=" + cdp + "," + img[0])
            check(ok, "nvlink -g -lcudadevrt of a dynamic-parallelism program = the program + the member's "
                  "sm_90 image (check_link.py)", out)
            p = run("link", "-o", a, cdp, devrt)
            q = run("link", "-o", b, cdp, img[0])
            check(p.returncode == 0 and q.returncode == 0 and same_file(a, b),
                  "cudwarf link cdp.rdc.cubin libcudadevrt.a = the link with the member's image given",
                  p.stderr + q.stderr)
        l3b = os.path.join(bare, "l3_b.rdc.cubin")
        ok, out = check_link(os.path.join(ar, "nocdp.link.g.cubin") + "=" + l3b)
        check(ok, "nvlink -g -lcudadevrt of a program without dynamic parallelism = the program alone", out)
        p, q = run("link", "-o", a, l3b, devrt), run("link", "-o", b, l3b)
        check(p.returncode == 0 and q.returncode == 0 and same_file(a, b),
              "cudwarf link l3_b.rdc.cubin libcudadevrt.a = cudwarf link l3_b.rdc.cubin", p.stderr + q.stderr)
        o = os.path.join(tmp, "none")
        p = run("link", "-o", o, devrt, l3b)
        check(p.returncode == 1 and "--arch" in p.stderr and "libcudadevrt.a before any object" in p.stderr and p.stderr.count("\n") == 1 and
              not os.path.exists(o), "libcudadevrt.a first, no --arch: one message, exit 1, nothing written",
              p.stderr)

    # malformed archives
    good = open(lib, "rb").read()
    cases = {
        "member header cut short": (good[:8 + 30], r"member header runs past"),
        "member size that is no number": (good[:8 + 48] + b"12x4      " + good[8 + 58:], r"not a decimal"),
        "member larger than the archive": (good[:8 + 48] + b"9999999999" + good[8 + 58:], r"runs past the end"),
        "thin archive": (b"!<thin>\n" + good[8:], r"thin archive"),
        "no device code": (b"!<arch>\n" + b"notes.txt/      0           0     0     644     6         `\nhello\n",
                           r"no CUDA device code"),
    }
    for name, (data, pat) in cases.items():
        path = os.path.join(tmp, "bad.a")
        open(path, "wb").write(data)
        o = os.path.join(tmp, "out")
        p = run("link", "--arch", "sm_90", "-o", o, os.path.join(bare, "l3_a.rdc.cubin"), path)

        check(p.returncode == 1 and re.search(pat, p.stderr) is not None and p.stderr.count("\n") == 1 and
              not os.path.exists(o), f"malformed archive, {name}: one error, exit 1, nothing written", p.stderr)
        q = run("list", path)
        check(q.returncode == 1 and re.search(pat, q.stderr) is not None, "list on it: the same error", q.stderr)

print(f"archives: {0 if fail else 'all'} passed, {fail} failed")
sys.exit(1 if fail else 0)
