"""`cudwarf resources --json` against what ptxas -v printed when it built
the cubin: registers, barriers, static shared bytes, stack frame and
cumulative stack per function.

Programs: tests/src/resources/*.cu and tests/src/names/nbody.cu, built by
nvcc for sm_75, sm_80, sm_90, sm_100 and sm_120, each -lineinfo, -G and
-lineinfo -rdc=true (cached in build/gen/resources with ptxas's log; a
build not cached needs nvcc, else its test is skipped).

ptxas -v says, per entry function, "Used R registers, used B barriers[, S
bytes smem][, C bytes cumulative stack size]", and per function "F bytes
stack frame".  A function ptxas placed inside a kernel in a whole-program
build ($KERNEL$FUNCTION) runs on the kernel's frame: ptxas reports it before
placement, the cubin after, so its frame is not compared (docs/formats.md 8).

    python3 -m pytest -m resources tests/ref/check_resources.py
    python3 -m pytest -m resources -k "nbody and sm_90" tests/ref/check_resources.py
"""
import glob
import json
import os
import re
import shutil
import subprocess

import pytest

from suite_env import GEN, ROOT, run

pytestmark = pytest.mark.resources

OUT = os.path.join(GEN, "resources")
SRCS = sorted(glob.glob(os.path.join(ROOT, "tests", "src", "resources", "*.cu"))) + \
    [os.path.join(ROOT, "tests", "src", "names", "nbody.cu")]
MODES = {"lineinfo": ["-lineinfo"], "G": ["-G"], "rdc": ["-lineinfo", "-rdc=true"]}


def build(src, arch, mode):
    """(cubin, ptxas -v log) for src built for arch in mode, cached."""
    stem = f"{os.path.splitext(os.path.basename(src))[0]}.sm_{arch}.{mode}"
    cubin, log = os.path.join(OUT, stem + ".cubin"), os.path.join(OUT, stem + ".log")
    if not (os.path.exists(cubin) and os.path.exists(log)):
        if not shutil.which("nvcc"):
            pytest.skip("nvcc is not installed (and the build is not in build/gen/resources)")
        os.makedirs(OUT, exist_ok=True)
        r = subprocess.run(["nvcc", f"-arch=sm_{arch}", *MODES[mode], "-cubin", "-Xptxas", "-v", "-o", cubin, src],
                           capture_output=True, text=True)
        assert r.returncode == 0, f"nvcc: {r.stderr[-300:]}"
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


@pytest.mark.parametrize("src", SRCS, ids=os.path.basename)
@pytest.mark.parametrize("arch", (75, 80, 90, 100, 120), ids=lambda a: f"sm_{a}")
@pytest.mark.parametrize("mode", MODES)
def test_as_ptxas_says(src, arch, mode, check):
    cubin, log = build(src, arch, mode)
    r = run("resources", "--json", cubin)
    assert r.returncode == 0, r.stderr[:300]
    ours = {k["name"]: k for im in json.loads(r.stdout) for k in im["kernels"]}
    want = ptxas_says(log)
    assert want, "ptxas -v named no function"
    for name, w in want.items():
        o = ours.get(name)
        if o is None:  # placed in a kernel: under $KERNEL$NAME only
            check(f"{name}: listed (placed in a kernel)",
                  any(k.endswith("$" + name) and ours[k]["placed_in"] for k in ours))
            continue
        for key, v in w.items():
            check(f"{name} {key}", o.get(key) == v, f"ptxas {v}, ours {o.get(key)}")
