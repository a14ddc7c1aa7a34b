"""The README's, the guide's and the man page's examples run, and print what they show.

Every ```console block of README.md and docs/guide.md (and every `.nf` block of
man/cudwarf.1 whose lines start with `$ `) holds `$ COMMAND` lines, each
followed by the exact output it prints (stdout).  The README's C example
must be examples/list_functions.c, which the test run builds and runs.  They
run here with bash, in order, in one scratch directory where tests/, build/
and examples/ lead to the repository's and `cudwarf` is the build's binary
(a later example may read what an earlier one wrote).  A command that names
a file this machine does not have (the CUDA libraries, cubins tests/gen.sh
compiles) is skipped, saying so.  When behaviour changes on purpose,
update the README from the command's output.

    python3 -m pytest -m docs
    python3 -m pytest -m docs -k guide
"""
import os
import re
import shlex
import subprocess

import pytest

from suite_env import CUDWARF, ROOT

pytestmark = pytest.mark.docs

DOCS = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "docs", "guide.md"), os.path.join(ROOT, "man", "cudwarf.1")]


def examples(path):
    """(command, the lines it prints) of every example of a document"""
    text = open(path).read()
    if path.endswith(".1"):  # roff: .nf blocks, \- for -, \& before a leading dot
        blocks = [b.replace("\\-", "-").replace("\\&", "")
                  for b in re.findall(r"^\.nf\n(.*?)^\.fi", text, re.S | re.M)]
    else:
        blocks = re.findall(r"```console\n(.*?)```", text, re.S)
    for block in blocks:
        cmd, out = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if cmd:
                    yield cmd, out
                cmd, out = line[2:], []
            elif cmd is not None:
                out.append(line)
        if cmd:
            yield cmd, out


def all_examples():
    """pytest params, in the documents' order; reading three text files is
    cheap enough for collection"""
    out = []
    for doc in DOCS:
        name = os.path.basename(doc)
        earlier = []
        for k, (cmd, want) in enumerate(examples(doc), 1):
            words = re.sub(r"[^\w.=-]+", "-", cmd.replace("cudwarf ", "", 1))[:40].strip("-")
            out.append(pytest.param(cmd, want, list(earlier), id=f"{name}#{k}-{words}"))
            earlier.append(cmd)
    return out


def written(cmd):
    """What the command writes with -o, or None."""
    toks = shlex.split(cmd.split("|")[0])
    return next((toks[k + 1] for k in range(len(toks) - 1) if toks[k] == "-o"), None)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """(the scratch directory, the environment the examples run in)"""
    tmp = tmp_path_factory.mktemp("docs")
    bindir = tmp / "bin"
    bindir.mkdir()
    os.symlink(os.path.abspath(CUDWARF), bindir / "cudwarf")
    for d in ("tests", "build", "examples", "python"):
        os.symlink(os.path.join(ROOT, d), tmp / d)
    return str(tmp), dict(os.environ, PATH=str(bindir) + os.pathsep + os.environ["PATH"], LC_ALL="C")


def missing(cmd, cwd):
    """A file the command reads that is not here."""
    toks = shlex.split(cmd.split("|")[0])
    for k, tok in enumerate(toks):
        if k and toks[k - 1] in ("-o", "-c") or tok[:1].isdigit() and tok[1:3] in (">/", ">&"):
            continue  # what the command writes, a redirection, or a program (python3 -c)
        if "/" in tok and not tok.startswith("-") and "=" not in tok and not any(c in tok for c in "*?"):
            if not os.path.exists(os.path.join(cwd, tok)):
                return tok
    return None


@pytest.mark.parametrize("cmd,want,earlier", all_examples())
def test_example(cmd, want, earlier, scratch):
    cwd, env = scratch
    for e in earlier:  # the files earlier examples write (run alone, with -k, they are not there yet)
        if written(e) and not os.path.exists(os.path.join(cwd, written(e))):
            subprocess.run(["bash", "-c", e], cwd=cwd, env=env, capture_output=True)
    gone = missing(cmd, cwd)
    if gone:
        pytest.skip(f"{gone} is not on this machine (nor written by an earlier example)")
    r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True)
    got = r.stdout.splitlines()
    for k in range(max(len(got), len(want))):
        g = got[k] if k < len(got) else "<none>"
        w = want[k] if k < len(want) else "<none>"
        assert g == w, f"line {k + 1}: shown {w!r}, prints {g!r}" + \
            (f"\nstderr: {r.stderr.strip().splitlines()[0]}" if r.stderr.strip() else "")


def test_c_example():
    """README.md: the C example is examples/list_functions.c"""
    code = re.search(r"```c\n(.*?)```", open(os.path.join(ROOT, "README.md")).read(), re.S)
    assert code and open(os.path.join(ROOT, "examples", "list_functions.c")).read().endswith(code.group(1))
