#!/usr/bin/env python3
"""The README's, the guide's and the man page's examples run, and print what they show.

Every ```console block of README.md and docs/guide.md (and every `.nf` block of
man/cudwarf.1 whose lines start with `$ `) holds `$ COMMAND` lines, each
followed by the exact output it prints (stdout).  The README's C example
must be examples/list_functions.c, which the test run builds and runs.  They run here with bash, in a
scratch directory where tests/, build/ and examples/ lead to the
repository's and `cudwarf` is the build's binary.  A command that names a
file this machine does not have (the CUDA libraries, cubins tests/gen.sh
compiles) is skipped, saying so.  When behaviour changes on purpose,
update the README from the command's output.

usage: doc_examples.py CUDWARF [MARKDOWN...]
"""
import os, re, shlex, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CUDWARF = os.path.abspath(sys.argv[1])
docs = sys.argv[2:] or [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "docs", "guide.md"),
                        os.path.join(ROOT, "man", "cudwarf.1")]
passed = failed = skipped = 0

tmp = tempfile.mkdtemp()
bindir = os.path.join(tmp, "bin")
os.makedirs(bindir)
os.symlink(CUDWARF, os.path.join(bindir, "cudwarf"))
for d in ("tests", "build", "examples", "python"):
    os.symlink(os.path.join(ROOT, d), os.path.join(tmp, d))
env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"], LC_ALL="C")


def examples(path):
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


def missing(cmd):
    """A file the command reads that is not here."""
    toks = shlex.split(cmd.split("|")[0])
    for k, tok in enumerate(toks):
        if k and toks[k - 1] in ("-o", "-c") or tok[:1].isdigit() and tok[1:3] in (">/", ">&"):
            continue  # what the command writes, a redirection, or a program (python3 -c)
        if "/" in tok and not tok.startswith("-") and "=" not in tok and not any(c in tok for c in "*?"):
            p = tok if os.path.isabs(tok) else os.path.join(tmp, tok)
            if not os.path.exists(p):
                return tok
    return None


for doc in docs:
    for cmd, want in examples(doc):
        gone = missing(cmd)
        if gone:
            skipped += 1
            print(f"skip {os.path.basename(doc)}: $ {cmd}: {gone} is not on this machine")
            continue
        r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=tmp, env=env, capture_output=True, text=True)
        got = r.stdout.splitlines()
        ok = got == want
        passed += ok
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {os.path.basename(doc)}: $ {cmd}")
        if not ok:
            for k in range(max(len(got), len(want))):
                g = got[k] if k < len(got) else "<none>"
                w = want[k] if k < len(want) else "<none>"
                if g != w:
                    print(f"     line {k + 1}: shown  {w!r}\n             prints {g!r}")
                    break
            if r.stderr.strip():
                print("     stderr: " + r.stderr.strip().splitlines()[0])
readme = open(os.path.join(ROOT, "README.md")).read()
code = re.search(r"```c\n(.*?)```", readme, re.S)
ok = code is not None and open(os.path.join(ROOT, "examples", "list_functions.c")).read().endswith(code.group(1))
passed += ok
failed += not ok
print(f"{'ok  ' if ok else 'FAIL'} README.md: the C example is examples/list_functions.c")
print(f"doc examples: {passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
sys.exit(1 if failed else 0)
