"""`cudwarf link` against `nvlink -g`, section by section and relocation by
relocation, on real link sets: the fixtures' (tests/fixtures/link2, and one
object whose FDE pointer lands on the next CIE, docs/spec-disagreements.md 7)
and every set tests/gen.sh linked (build/gen/**/link.g.cubin).

For each set (nvlink's output and the inputs in link order), cudwarf links
the inputs with --symbols OUTPUT (nvlink lays out __shared__ memory; its
symbol values are all cudwarf takes from it).  Every debug section of
nvlink's output must be byte-identical to ours, and its relocations (offset,
type, symbol name, addend) equal to ours, except where nvlink is wrong and
we are right, each checked here independently of cudwarf:
  - FDE CIE pointers: nvlink applies ptxas's relocation, which names no CIE
    or the CIE after the FDE (docs/spec-disagreements.md 7); ours must name
    the CIE before the FDE;
  - line-table .debug_str base words that nvlink leaves at 0 (sm_90); ours
    must hold the offset of the table's input's .debug_str in the output;
  - sm_100+: the standard-named line tables and frames nvlink regenerates
    when it finalizes Mercury code (function sizes differ from the inputs',
    or, sizes equal, instructions no relocation touches do); their Mercury
    twins are compared instead.
Without --symbols, the only differences allowed are relocations kept against
__shared__ variables.  With --dedup-strings, .debug_str holds each string
once and every line row and DIE attribute decodes to the same value as
without it, and `cudwarf verify` finds no error (test_sections).  For
-lineinfo sets, every inlined row of ours names the same function as the
row at that symbol+offset in its input (`cudwarf lines --json`;
test_inlined_rows, skipped for a set without inlined rows).
The comparisons are in tests/common/link_compare.py (link_archive.py uses
them too).

    python3 -m pytest -m link
    python3 -m pytest -m link -k link3/sm_90
"""
import glob
import os

import pytest

import link_compare
from suite_env import FIX, GEN, short

pytestmark = pytest.mark.link


def link_sets():
    """(nvlink's output, the inputs in link order) of each set"""
    dirs = sorted(glob.glob(os.path.join(FIX, "link2", "*"))) + \
        sorted(os.path.dirname(p) for p in glob.glob(os.path.join(GEN, "**", "link.g.cubin"), recursive=True))
    sets = []
    for d in dirs:
        if not os.path.isfile(os.path.join(d, "link.g.cubin")):
            continue
        if os.path.isfile(os.path.join(d, "kern.rdc.cubin")):
            ins = [os.path.join(d, "kern.rdc.cubin"), os.path.join(d, "other.rdc.cubin")]
        else:
            ins = sorted(glob.glob(os.path.join(d, "*.rdc.cubin")))
        sets.append((os.path.join(d, "link.g.cubin"), ins))
    sets.append((os.path.join(FIX, "virt_sm90_lineinfo.link.g.cubin"), [os.path.join(FIX, "virt_sm90_lineinfo.rdc.cubin")]))
    return sets


SETS = link_sets()
IDS = [short(out) for out, _ in SETS]


@pytest.mark.parametrize("out,ins", SETS, ids=IDS)
def test_sections(out, ins, tmp_path):
    problems, notes = link_compare.link_problems(out, ins, str(tmp_path))
    print("\n".join(notes))  # the sections nvlink regenerated, shown with -s
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("out,ins", SETS, ids=IDS)
def test_inlined_rows(out, ins, tmp_path):
    ours = str(tmp_path / "ours.cubin")
    p = link_compare.link(ours, ins, "--symbols", out)
    assert p.returncode == 0, p.stderr
    n, problems = link_compare.inlined_problems(ours, ins)
    if not n:
        pytest.skip("no inlined rows in the link (not -lineinfo)")
    assert not problems, problems[0]
