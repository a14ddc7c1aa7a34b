#!/usr/bin/env python3
"""cudwarf link takes what nvcc -dc -c writes: host objects whose
__nv_relfatbin holds one relocatable cubin per SM (and PTX), here -G.  Linking the
sm_N images of the host objects must give, byte for byte, the link of the
same sources compiled to bare -dc cubins (tests/gen.sh builds both); with
several SMs and no --arch, or an SM the inputs lack, nothing is written and
the error says why.  --symbols also takes nvcc -dlink's host object.

usage: link_inputs.py CUDWARF GEN_DIR
"""
import glob, os, re, subprocess, sys, tempfile

cudwarf, gen = sys.argv[1], sys.argv[2]
hosts = sorted(glob.glob(os.path.join(gen, "hostobj", "l3_*.o")))
if not hosts:
    print("skip link inputs: no host objects (nvcc absent)")
    sys.exit(0)
fail = 0


def run(args):
    return subprocess.run([cudwarf, *args], capture_output=True)


def check(ok, what, detail=""):
    global fail
    print(f"{'ok  ' if ok else 'FAIL'} {what}{': ' + detail if detail and not ok else ''}")
    fail += not ok


with tempfile.TemporaryDirectory() as tmp:
    for sm in (80, 90):
        cubins = sorted(glob.glob(os.path.join(gen, "link3", f"sm_{sm}", "G", "*.rdc.cubin")))
        a, b = os.path.join(tmp, f"h{sm}"), os.path.join(tmp, f"c{sm}")
        p, q = run(["link", "--arch", f"sm_{sm}", "-o", a, *hosts]), run(["link", "-o", b, *cubins])
        same = p.returncode == 0 and q.returncode == 0 and open(a, "rb").read() == open(b, "rb").read()
        check(same, f"link --arch sm_{sm} of {len(hosts)} host objects = link of the -dc cubins",
              (p.stderr + q.stderr).decode().strip())
    dl = os.path.join(gen, "hostobj", "dlink.o")
    nvl = os.path.join(gen, "link3", "sm_90", "G", "link.g.cubin")
    a, b = os.path.join(tmp, "sa"), os.path.join(tmp, "sb")
    p = run(["link", "--stats", "--arch", "sm_90", "--symbols", dl, "-o", a, *hosts])
    q = run(["link", "--stats", "--arch", "sm_90", "--symbols", nvl, "-o", b, *hosts])
    same = p.returncode == 0 and q.returncode == 0 and open(a, "rb").read() == open(b, "rb").read()
    m = re.search(rb"__shared__: (\d+) resolved from --symbols, 0 kept", p.stderr)
    check(same and m and int(m.group(1)) > 0,
          f"--symbols from nvcc -dlink's host object = from nvlink -g's cubin "
          f"({m.group(1).decode() if m else '?'} __shared__ relocations resolved)", (p.stderr + q.stderr).decode())

    out = os.path.join(tmp, "none")
    p = run(["link", "-o", out, *hosts])
    err = p.stderr.decode()
    check(p.returncode == 1 and "--arch" in err and "sm_80" in err and "sm_90" in err and not os.path.exists(out),
          "two SMs and no --arch: exit 1, names both, writes nothing", err)
    p = run(["link", "--arch", "sm_75", "-o", out, *hosts])
    err = p.stderr.decode()
    check(p.returncode == 1 and "no sm_75 device ELF" in err and hosts[0] in err and not os.path.exists(out),
          "--arch sm_75 absent: exit 1, names the input, writes nothing", err)
    a, b = os.path.join(tmp, "eq1"), os.path.join(tmp, "eq2")
    p, q = run(["link", "--sm=90", "-o", a, *hosts]), run(["link", "--arch=sm_90", "-o", b, *hosts])
    check(p.returncode == 0 and q.returncode == 0 and open(a, "rb").read() == open(os.path.join(tmp, "h90"), "rb").read()
          and open(b, "rb").read() == open(a, "rb").read(), "--sm=90 and --arch=sm_90 = --arch sm_90")
    # sm_90 and sm_90a share e_flags; only the fatbin entry (flag 0x100000) tells them apart
    var = os.path.join(gen, "hostobj", "variants.o")
    p = run(["link", "-o", out, var])
    err = p.stderr.decode()
    check(p.returncode == 1 and "is sm_90a" in err and "sm_90 code" in err and not os.path.exists(out),
          "an object with sm_90 and sm_90a images, no --arch: exit 1, names both", err)
    a, b = os.path.join(tmp, "v90a"), os.path.join(tmp, "c90a")
    p = run(["link", "--arch", "sm_90a", "-o", a, var])
    q = run(["link", "-o", b, os.path.join(gen, "hostobj", "l3_a.sm_90a.rdc.cubin")])
    check(p.returncode == 0 and q.returncode == 0 and open(a, "rb").read() == open(b, "rb").read(),
          "--arch sm_90a takes the arch-specific image: = link of the sm_90a -dc cubin", (p.stderr + q.stderr).decode())
    a, b = os.path.join(tmp, "v90"), os.path.join(tmp, "c90")
    p = run(["link", "--arch", "sm_90", "-o", a, var])
    q = run(["link", "-o", b, os.path.join(gen, "link3", "sm_90", "G", "l3_a.rdc.cubin")])
    check(p.returncode == 0 and q.returncode == 0 and open(a, "rb").read() == open(b, "rb").read() and
          open(a, "rb").read() != open(os.path.join(tmp, "v90a"), "rb").read(),
          "--arch sm_90 takes the plain image: = link of the sm_90 -dc cubin, not the sm_90a one",
          (p.stderr + q.stderr).decode())
    # addr2line --sm=90a / --sm=90 read the matching image of the same object
    loc = "_Z2kaPi+0x80"
    for sm, bare in (("90a", os.path.join(gen, "hostobj", "l3_a.sm_90a.rdc.cubin")),
                     ("90", os.path.join(gen, "link3", "sm_90", "G", "l3_a.rdc.cubin"))):
        p = run(["addr2line", "-e", var, f"--sm={sm}", "-fi", loc])
        q = run(["addr2line", "-e", bare, "-fi", loc])
        check(p.returncode == 0 and p.stdout == q.stdout and b"l3_a.cu:" in p.stdout,
              f"addr2line --sm={sm} on the two-variant object = on the sm_{sm} cubin", (p.stdout + p.stderr).decode())
    p = run(["link", "--arch", "ninety", "-o", out, *hosts])
    check(p.returncode == 2 and not os.path.exists(out), "--arch ninety: usage error (exit 2)", p.stderr.decode())
print(f"link inputs: {fail} failed")
sys.exit(1 if fail else 0)
