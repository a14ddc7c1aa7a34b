#!/usr/bin/env python3
"""Golden output: the text formats of the main commands on committed
fixtures, byte for byte (zstd's tests/cli-tests habit: the expected output
beside each case).

tests/golden/cases.txt lists the cases, one a line: NAME CHECK EXIT ARGS.
Each runs `cudwarf ARGS` from the checkout's root; its standard output must
equal tests/golden/NAME.out, its standard error tests/golden/NAME.err (no
file: nothing), its exit status EXIT.  A difference fails the case with a
unified diff.

    python3 -m pytest -m golden                          every case
    python3 -m pytest -m golden tests/cli/test_golden.py -k tiny-lines

The golden files change only by an explicit command, which first checks
each new output against a reference tool (CHECK) and refuses to write one
that disagrees:

    python3 tests/cli/test_golden.py --regen [NAME...]   regenerate (all, or the named)
    python3 tests/cli/test_golden.py --check [NAME...]   check the committed goldens, write nothing
        [--build DIR] (default build)  [--unchecked: write where the reference tool is missing]

The checks live beside the goldens: tests/golden/golden_refs.py (running and
reading the reference tools), golden_dwarf.py and golden_elf.py (one
check_CHECK each).  What each CHECK compares (the values read from the golden
text itself; tests/golden/README.md has the cases):

  lines         rows of every table shown against libdw (build/tests/libdw_lines
                -r, with -m / -s for the Mercury and .nv_debug_line_sass views):
                address, file path, line, column, is_stmt, end_sequence, sequence,
                inline context and function; each sequence's symbol against the
                .rela.* entry readelf -r shows for its DW_LNE_set_address; with
                --ptx, the PTX text against the .nv_debug_ptx_txt bytes (readelf -S)
  addr2line     each answer recomputed from libdw's rows (the last row at or
                before the offset, its inline contexts), the symbol's sequence
                from readelf -r, its size from readelf -S, and for -G code the
                inlined-subroutine DIEs of llvm-dwarfdump (call_file/call_line);
                c++filt for -C and for short names; ?? where readelf has no such
                function or the offset is past its end
  dies          llvm-dwarfdump --debug-info on a relocated copy (build/tests/
                cubin_prep -r -e -x, -m for the twin): unit headers; every DIE's
                offset, tag, attribute names; strings, numbers, references and
                DW_* names
  abbrev        llvm-dwarfdump --debug-abbrev: codes, tags, children, (attribute, form)
  line-program  llvm-dwarfdump --debug-line on the relocated copy: header fields,
                opcode lengths, directories, files; the rows the statements make
                (replayed from the golden's "to 0x..", "to LINE", "Copy" words)
  frames        llvm-dwarfdump --debug-frame on the relocated copy: every CIE/FDE
                (offset, length, CIE pointer, pc range, version, alignment
                factors, return column), its instructions' names, FDE row addresses
  pubnames      llvm-dwarfdump --debug-pubnames (the twin on a cubin_prep -m copy)
  str           readelf -p .debug_str: offset and string of each entry
  sections      readelf -h and -S -W: ELF type, machine, e_flags, section count;
                per section name, type, offset, size; relocation counts (size/entsize
                of the REL/RELA sections aimed at it, by sh_info); the Mercury twin
                and whether it is aliased (same offset and size)
  size          readelf -S -W, classified by docs/json.md's rules: each class and
                its percentage, headers (bytes no section holds) and the file size;
                duplicate kernels: .text.NAME sections with the same bytes; a
                fatbin's images are written by `cudwarf extract` and read the same
                way, the containers' total is the file size
  resources     ptxas -v on the PTX the image came from, where it is at hand (a
                stage1 cubin's .ptx beside it; a fatbin's PTX entry, for the ELF
                entry of its SM): registers, barriers, shared, stack frame,
                cumulative stack of each function ptxas reports; every kernel's
                cmem0 against readelf -S's .nv.constant0.KERNEL (a container's
                images as `cudwarf extract` writes them).  The cubins built
                without their PTX kept get the cmem0 comparison alone: ptxas
                cannot rebuild them from .nv_debug_ptx_txt (no .loc, other
                registers)
  correlate     SASS bytes and instructions per source line, function and file,
                exclusive and with inlined callees, and per call site, recomputed
                from libdw's rows with the inline chains addr2line's check makes,
                and readelf -S's .text sizes; the no-line bytes; the image's total;
                the Mercury capsules' bytes (.nv.capmerc.text.*)
  list          readelf -S and the file size: the containers tile the file or
                the host section they were found in; image counts add up; each
                image as `cudwarf extract` writes it: its size, and for ELF the SM
                (readelf -h e_flags), debug section names and whether it has code
                (readelf -S), for PTX the .version and .target
  -             no reference tool
"""
import difflib
import os
import shlex
import shutil
import subprocess
import sys
from typing import NamedTuple

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(ROOT, "tests", "golden")
if __name__ == "__main__":  # the script: its --build (conftest.py's, under pytest)
    _b = sys.argv[sys.argv.index("--build") + 1] if "--build" in sys.argv[:-1] else os.environ.get(
        "CUDWARF_BUILD", "build")
    os.environ["CUDWARF_BUILD"] = os.path.abspath(os.path.join(ROOT, _b))
    os.environ["CUDWARF"] = os.path.join(os.environ["CUDWARF_BUILD"], "cudwarf")
sys.path.insert(0, GOLDEN)  # the reference tools' side: tests/golden/golden_*.py
from golden_refs import CUDWARF, Report, Unavailable  # noqa: E402
import golden_refs  # noqa: E402
from golden_dwarf import (check_abbrev, check_addr2line, check_dies, check_frames, check_line_program,  # noqa: E402
                          check_lines, check_pubnames, check_str)
from golden_elf import check_correlate, check_list, check_resources, check_sections, check_size  # noqa: E402

try:
    import pytest
    pytestmark = pytest.mark.golden
except ImportError:  # the script does not need it
    pytest = None


class Case(NamedTuple):
    name: str
    check: str
    exit: int
    args: tuple

    @property
    def input(self):
        """The file the case reads: -e's, else the last argument that is a file."""
        a = list(self.args)
        if "-e" in a:
            return a[a.index("-e") + 1]
        return [x for x in a if os.path.isfile(os.path.join(ROOT, x))][-1]


def load_cases():
    cases = []
    with open(os.path.join(GOLDEN, "cases.txt")) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            name, check, code, rest = line.split(None, 3)
            cases.append(Case(name, check, int(code), tuple(shlex.split(rest))))
    return cases


CASES = load_cases()


def run_case(case):
    env = dict(os.environ, LC_ALL="C")
    p = subprocess.run([CUDWARF, *case.args], cwd=ROOT, capture_output=True, env=env, timeout=300)
    return p.returncode, p.stdout, p.stderr


def golden_path(case, ext):
    return os.path.join(GOLDEN, f"{case.name}.{ext}")


def read_golden(case, ext):
    p = golden_path(case, ext)
    if not os.path.exists(p):
        return None
    with open(p, "rb") as f:
        return f.read()


def udiff(want, got, label, cmd, limit=120):
    a = want.decode("utf-8", "backslashreplace").splitlines(keepends=True)
    b = got.decode("utf-8", "backslashreplace").splitlines(keepends=True)
    d = list(difflib.unified_diff(a, b, fromfile=label, tofile=cmd))
    d = [x if x.endswith("\n") else x + "\n\\ No newline at end of file\n" for x in d]
    more = len(d) - limit
    return "".join(d[:limit]) + (f"... {more} more diff lines\n" if more > 0 else "")


def compare(case, rc, out, err):
    """The differences from the goldens, as text (empty: none)."""
    cmd = "cudwarf " + shlex.join(case.args)
    want = read_golden(case, "out")
    if want is None:
        return f"no tests/golden/{case.name}.out: python3 tests/cli/test_golden.py --regen {case.name}\n"
    msgs = []
    if rc != case.exit:
        msgs.append(f"exit status {rc}, cases.txt says {case.exit}\n")
    if out != want:
        msgs.append(udiff(want, out, f"tests/golden/{case.name}.out", cmd + " (stdout)"))
    want_err = read_golden(case, "err") or b""
    if err != want_err:
        msgs.append(udiff(want_err, err, f"tests/golden/{case.name}.err", cmd + " (stderr)"))
    return "".join(msgs)


# ---- the tests ------------------------------------------------------------

if pytest:
    @pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
    def test_golden(case):
        rc, out, err = run_case(case)
        diff = compare(case, rc, out, err)
        if diff:
            pytest.fail(f"cudwarf {shlex.join(case.args)} differs from its golden "
                        f"(intended? python3 tests/cli/test_golden.py --regen {case.name}):\n{diff}",
                        pytrace=False)

    def test_golden_files_are_cases():
        """Every file in tests/golden/ belongs to a case; names are unique; checks are known."""
        names = [c.name for c in CASES]
        assert len(names) == len(set(names)), "a case name is listed twice"
        assert all(c.check in CHECKS for c in CASES), [c.check for c in CASES if c.check not in CHECKS]
        stray = [f for f in os.listdir(GOLDEN) if f.rsplit(".", 1)[-1] in ("out", "err")
                 and f.rsplit(".", 1)[0] not in names]
        assert not stray, f"golden files of no case: {stray}"


CHECKS = {"lines": check_lines, "addr2line": check_addr2line, "dies": check_dies, "abbrev": check_abbrev,
          "line-program": check_line_program, "frames": check_frames, "pubnames": check_pubnames,
          "str": check_str, "sections": check_sections, "size": check_size, "resources": check_resources,
          "correlate": check_correlate, "list": check_list, "-": None}


def cross_check(case, out):
    """(comparisons that agree, problems) of output against the case's reference; Unavailable if it cannot run."""
    fn = CHECKS[case.check]
    if fn is None:
        return 0, [], []
    R = Report()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        fn(case, out.decode("utf-8", "replace"), R)
    except (AttributeError, IndexError, KeyError, TypeError, ValueError) as e:  # the golden did not parse
        R.fail(f"the output does not parse as {case.check} expects: {type(e).__name__}: {e}")
    finally:
        os.chdir(cwd)
    if R.n == 0 and not R.problems:
        R.fail("nothing compared")
    return R.n - len(R.problems), R.problems, R.notes


# ---- regeneration -----------------------------------------------------------

def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="Regenerate or check tests/golden (see the module docstring).")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--regen", action="store_true", help="rewrite the goldens, each checked against its reference")
    g.add_argument("--check", action="store_true", help="check the committed goldens against the references")
    ap.add_argument("--build", default="build", help="the build directory (default build)")
    ap.add_argument("--unchecked", action="store_true", help="write where the reference tool cannot run")
    ap.add_argument("names", nargs="*", help="only these cases")
    a = ap.parse_args(argv)
    unknown = set(a.names) - {c.name for c in CASES}
    if unknown:
        ap.error(f"no such case: {', '.join(sorted(unknown))}")
    bad = 0
    for case in CASES:
        if a.names and case.name not in a.names:
            continue
        if a.regen:
            rc, out, err = run_case(case)
            if rc != case.exit:
                print(f"REFUSED {case.name}: exit {rc}, cases.txt says {case.exit}\n  {err.decode()[:300]}")
                bad += 1
                continue
        else:
            out = read_golden(case, "out")
            if out is None:
                print(f"MISSING {case.name}.out")
                bad += 1
                continue
        try:
            agree, problems, notes = cross_check(case, out)
            note = f"{agree} values agree with {case.check}'s reference" if case.check != "-" else "no reference"
            note += "".join(f"; {n}" for n in notes)
        except Unavailable as e:
            if not a.unchecked:
                print(f"REFUSED {case.name}: cannot check it: {e} (--unchecked writes it anyway)")
                bad += 1
                continue
            problems, note = [], f"not checked: {e}"
        if problems:
            print(f"{'REFUSED' if a.regen else 'FAIL'} {case.name}: {len(problems)} disagree with "
                  f"{case.check}'s reference:")
            for p in problems[:20]:
                print("    " + p)
            bad += 1
            continue
        if a.check:
            print(f"ok      {case.name}: {note}")
            continue
        changed = read_golden(case, "out") != out or (read_golden(case, "err") or b"") != err
        with open(golden_path(case, "out"), "wb") as f:
            f.write(out)
        if err:
            with open(golden_path(case, "err"), "wb") as f:
                f.write(err)
        elif os.path.exists(golden_path(case, "err")):
            os.remove(golden_path(case, "err"))
        print(f"{'wrote  ' if changed else 'same   '} {case.name}: {note}")
    if golden_refs.TMP:
        shutil.rmtree(golden_refs.TMP, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
