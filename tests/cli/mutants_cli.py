"""Mutants through the command line: truncated and byte-flipped copies of
the fixture cubins (fixed seed; 500 mutants, 150 under the sanitizer build)
given to `cudwarf dump --all` and `cudwarf lines`.  Each run must exit 0 or
1 within 10 s, never by a signal; on 0, stderr is empty; on 1, stderr is
one line per failed file naming the file and, for a bad section, the
section and offset ("cudwarf: FILE: SECTION+0xOFF: ..." or, for the
container, "cudwarf: FILE: offset 0x...: ...").  (tests/tools/mutate.c runs
15,000+ mutants in process; this checks what users see.)  One test per
fixture: the mutants drawn from it.

    python3 -m pytest -m mutate tests/cli/mutants_cli.py
"""
import os
import random
import re
import subprocess

import pytest

from suite_env import CUDWARF, SANITIZED, fixture_cubins, short

pytestmark = pytest.mark.mutate

# the sanitizer build runs fewer: the same parsers, and under ASan the full
# count was two minutes of CI's fifteen
N = 150 if SANITIZED else 500
MSG = re.compile(r"^cudwarf: (.+?): ((\.[\w.]+|fatbin)\+0x[0-9a-f]+|offset 0x[0-9a-f]+): \S")


@pytest.fixture(scope="module")
def mutants():
    """source -> [(mutant number, truncated length or None, [(offset, xor)])],
    drawn in one sequence from random.Random(7) over all the fixtures"""
    files = fixture_cubins()
    rnd = random.Random(7)
    out = {}
    for i in range(N):
        src = rnd.choice(files)
        size = os.path.getsize(src)
        if rnd.random() < 0.3:
            m = (i, rnd.randrange(1, size), [])
        else:
            m = (i, None, [(rnd.randrange(size), rnd.randrange(1, 256)) for _ in range(rnd.randrange(1, 6))])
        out.setdefault(src, []).append(m)
    return out


@pytest.mark.parametrize("src", fixture_cubins(), ids=short)
def test_mutants(src, mutants, tmp_path, check):
    mine = mutants.get(src)
    if not mine:
        pytest.skip(f"none of the {N} mutants is drawn from this file")
    orig = open(src, "rb").read()
    for i, length, flips in mine:
        data = bytearray(orig[:length] if length else orig)
        for at, x in flips:
            data[at] ^= x
        path = str(tmp_path / f"m{i}.cubin")
        open(path, "wb").write(data)
        for args in (["dump", "--all"], ["lines"]):
            name = f"mutant {i} {' '.join(args)}"
            try:
                r = subprocess.run([CUDWARF, *args, path], capture_output=True, text=True, timeout=10,
                                   errors="replace")
            except subprocess.TimeoutExpired:
                check(name, False, "hung")
                continue
            if r.returncode == 1:
                lines = r.stderr.strip().splitlines()
                ok = len(lines) == 1 and MSG.match(lines[0]) is not None and path in lines[0]
            else:
                ok = r.returncode == 0 and r.stderr == ""
            check(name, ok, f"exit {r.returncode}: {r.stderr.strip()[:300]}")
        os.unlink(path)
