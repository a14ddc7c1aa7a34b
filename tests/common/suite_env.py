"""What a test module needs to know of the checkout: the build under test
(conftest.py's --build), the fixtures, the cubins tests/gen.sh compiled,
and a way to run the command line."""
import glob
import os
import shutil
import subprocess

import pytest

from cubin_bytes import section_names

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("CUDWARF_BUILD", os.path.join(ROOT, "build"))
CUDWARF = os.environ.get("CUDWARF", os.path.join(BUILD, "cudwarf"))
PREP = os.path.join(BUILD, "tests", "cubin_prep")          # ../shared/oracles' relocation copier
LIBDW_LINES = os.path.join(BUILD, "tests", "libdw_lines")  # and its libdw row dumper
FIX = os.path.join(ROOT, "tests", "fixtures")
GEN = os.path.join(ROOT, "build", "gen")                   # tests/gen.sh's output (the gen suite)
LIBS = bool(os.environ.get("CUDWARF_TEST_LIBS"))
QUICK = bool(os.environ.get("CUDWARF_TEST_QUICK"))
CUDA_LIB64 = "/usr/local/cuda/lib64"
# run.sh's `$build != build`: the sanitizer build reads a sample of the big input sets
SANITIZED = os.path.basename(BUILD) != "build"


def fixture_cubins():
    return sorted(glob.glob(os.path.join(FIX, "*.cubin")))


def external_cubins():
    return sorted(glob.glob(os.path.join(FIX, "external", "*.cubin")))


def external_oracle():
    """The outside cubins whose relocated oracle copy (cubin_prep) is the
    same file: not the ELF32 copy (cubin_prep lays out ELF64), the
    sh_link-elsewhere copy (the copier follows sh_link) nor the 0x05 rule
    (llvm decodes it its way); check_external.py compares those with their
    sources instead."""
    return [f for f in external_cubins() if not any(k in f for k in (".elf32.", ".shlink.", ".cfa05."))]


def gen_cubins():
    """The cubins tests/gen.sh compiled (not the stage-1 programs)."""
    out = []
    for d, _, files in os.walk(GEN):
        if "/stage1" in d[len(GEN):] + "/":
            continue
        out += [os.path.join(d, f) for f in files if f.endswith(".cubin")]
    return sorted(out)


def gen_sample():
    """gen_cubins() as run.sh's gen block leaves them for the suites after
    it: every fourth under the sanitizer build (all kinds are in each
    quarter; the values are the normal build's to check)."""
    return gen_cubins()[::4] if SANITIZED else gen_cubins()


def views(paths, names, marks=()):
    """pytest params (path, section) for each section of names that path has
    (section names read from the bytes: cheap enough for collection)."""
    out = []
    for p in paths:
        have = section_names(p)
        out += [pytest.param(p, n, id=f"{short(p)}:{n}", marks=marks) for n in names if n in have]
    return out


def or_skip(params, reason, nargs=1, marks=()):
    """params, or one test skipped for reason when there are none (a suite
    with nothing to run shows "skipped", never "passed")."""
    return params or [pytest.param(*[None] * nargs, id="none", marks=[*marks, pytest.mark.skip(reason=reason)])]


def ref_views(names, mark):
    """views() for the compare_*.py modules: of the fixtures and the outside
    cubins the oracles read, marked with the suite's mark; of gen_sample(),
    marked gen (a skip when tests/gen.sh compiled none)."""
    gen = pytest.mark.gen
    return views(fixture_cubins() + external_oracle(), names, [mark]) + \
        or_skip(views(gen_sample(), names, [gen]), "no build/gen cubins (tests/gen.sh: nvcc)", 2, [gen])


def require(*tools):
    """Skip the test unless every tool is on PATH."""
    for t in tools:
        if not shutil.which(t):
            pytest.skip(f"{t} is not installed")


def relocated(path, out, *extra):
    """cubin_prep -r -e -x [EXTRA] PATH OUT: the copy llvm-dwarfdump reads,
    which applies no EM_CUDA relocation (-m: the Mercury twin as .debug_*)."""
    subprocess.run([PREP, "-r", "-e", "-x", *extra, str(path), str(out)], check=True, capture_output=True)
    return str(out)


def short(path):
    """A path as a test id shows it: relative to the checkout."""
    return os.path.relpath(path, ROOT)


def run(*args, **kw):
    """cudwarf ARGS..., text output captured."""
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    return subprocess.run([CUDWARF, *map(str, args)], **kw)
