#!/usr/bin/env python3
"""`cudwarf resources --json` against what ptxas -v printed when it built
the cubin: registers, barriers, static shared bytes, stack frame and
cumulative stack per function.

Programs: tests/src/resources/*.cu and tests/src/names/nbody.cu, built by
nvcc for sm_75, sm_80, sm_90, sm_100 and sm_120, each -lineinfo, -G and
-lineinfo -rdc=true (cached in build/gen/resources with ptxas's log).

ptxas -v says, per entry function, "Used R registers, used B barriers[, S
bytes smem][, C bytes cumulative stack size]", and per function "F bytes
stack frame".  A function ptxas placed inside a kernel in a whole-program
build ($KERNEL$FUNCTION) runs on the kernel's frame: ptxas reports it before
placement, the cubin after, so its frame is not compared (docs/formats.md 8).

usage: check_resources.py CUDWARF   (skips, counted, without nvcc)
"""
import glob, json, os, re, shutil, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import tally  # noqa: E402

CUDWARF = sys.argv[1]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "build", "gen", "resources")
T = tally.Tally("resources")
check = T.check


def build(src, arch, mode):
    """(cubin, ptxas -v log) for src built for arch in mode, cached."""
    stem = f"{os.path.splitext(os.path.basename(src))[0]}.sm_{arch}.{mode}"
    cubin, log = os.path.join(OUT, stem + ".cubin"), os.path.join(OUT, stem + ".log")
    if not (os.path.exists(cubin) and os.path.exists(log)):
        flags = {"lineinfo": ["-lineinfo"], "G": ["-G"], "rdc": ["-lineinfo", "-rdc=true"]}[mode]
        r = subprocess.run(["nvcc", f"-arch=sm_{arch}", *flags, "-cubin", "-Xptxas", "-v", "-o", cubin, src],
                           capture_output=True, text=True)
        if r.returncode:
            return None, r.stderr
        open(log, "w").write(r.stdout + r.stderr)
    return cubin, open(log).read()


def ptxas_says(log):
    """{function: {registers, barriers, shared_bytes, stack_bytes, cumulative}} from ptxas -v."""
    funcs, cur = {}, None
    for line in log.splitlines():
        m = re.search(r"(?:Compiling entry function|Function properties for) '?([^' ]+)'?", line)
        if m:
            cur = funcs.setdefault(m.group(1), {})
            continue
        m = re.search(r"(\d+) bytes stack frame", line)
        if m and cur is not None:
            cur["stack_bytes"] = int(m.group(1))
        m = re.search(r"Used (\d+) registers, used (\d+) barriers", line)
        if m and cur is not None:
            cur["registers"], cur["barriers"] = int(m.group(1)), int(m.group(2))
            s = re.search(r"(\d+) bytes smem", line)
            cur["shared_bytes"] = int(s.group(1)) if s else 0
            c = re.search(r"(\d+) bytes cumulative stack size", line)
            if c:
                cur["cumulative_stack_bytes"] = int(c.group(1))
    return funcs


if not shutil.which("nvcc"):
    print("skipped: no nvcc (the resources checks compile their programs)")
    print("resources: 0 passed, 0 failed, 1 skipped")
    sys.exit(0)
os.makedirs(OUT, exist_ok=True)
srcs = sorted(glob.glob(os.path.join(ROOT, "tests", "src", "resources", "*.cu"))) + \
    [os.path.join(ROOT, "tests", "src", "names", "nbody.cu")]
for src in srcs:
    for arch in (75, 80, 90, 100, 120):
        for mode in ("lineinfo", "G", "rdc"):
            cubin, log = build(src, arch, mode)
            what = f"{os.path.basename(src)} sm_{arch} {mode}"
            if not cubin:
                check(f"{what}: nvcc", False, log[-300:])
                continue
            r = subprocess.run([CUDWARF, "resources", "--json", cubin], capture_output=True, text=True)
            ours = {k["name"]: k for im in json.loads(r.stdout) for k in im["kernels"]} if r.returncode == 0 else {}
            want = ptxas_says(log)
            bad = []
            for name, w in want.items():
                o = ours.get(name)
                if o is None:   # placed in a kernel: under $KERNEL$NAME only
                    if not any(k.endswith("$" + name) and ours[k]["placed_in"] for k in ours):
                        bad.append(f"{name}: not listed")
                    continue
                for key, v in w.items():
                    if o.get(key) != v:
                        bad.append(f"{name} {key}: ptxas {v}, ours {o.get(key)}")
            n = sum(len(w) for w in want.values())
            check(f"{what}: {len(want)} functions, {n} values as ptxas -v", r.returncode == 0 and want and not bad,
                  "; ".join(bad[:6]) + r.stderr[:200])

T.done()
