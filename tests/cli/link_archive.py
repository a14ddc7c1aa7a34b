"""Static libraries as link inputs, against nvlink -g (tests/gen.sh builds
them in build/gen/archive; skipped, saying so, when it has not: nvcc absent):
  - nvcc -lib of three -dc host objects, one of which nothing references:
    nvlink links every member in archive order, so nvlink's output must
    equal, under check_link.py's comparisons (tests/common/link_compare.py),
    the link of the bare -dc cubins in that order, and
    `cudwarf link l3_a.o libl3.a` must be byte-identical to
    `cudwarf link l3_a.o l3_c.o unused.o l3_b.o`;
  - libcudadevrt.a: nvlink takes its member only for a program that
    references it (dynamic parallelism): with it, nvlink's output must
    check against the program plus the member's sm_90 image, and ours must
    equal the link with that image given explicitly; without it, against
    the program alone, and ours must equal the link without the library;
  - errors: libcudadevrt.a before any object with no --arch, a malformed
    member header, a thin archive, an archive with no device code: one
    message, exit 1, no output file.

    python3 -m pytest -m archives
"""
import json
import os
import re

import pytest

import link_compare
from suite_env import GEN, run, short

pytestmark = pytest.mark.archives

AR = os.path.join(GEN, "archive")
HOST = os.path.join(GEN, "hostobj")
BARE = os.path.join(GEN, "link3", "sm_90", "G")
LIB = os.path.join(AR, "libl3.a")
DEVRT = os.path.join(AR, "libcudadevrt.a")


@pytest.fixture(autouse=True)
def built():
    if not os.path.exists(LIB):
        pytest.skip(f"{short(LIB)} not built (tests/gen.sh builds it when nvcc is present)")


@pytest.fixture
def devrt():
    if not os.path.exists(DEVRT):
        pytest.skip("libcudadevrt.a: not found beside nvcc")
    return DEVRT


def same_file(a, b):
    return os.path.exists(a) and os.path.exists(b) and open(a, "rb").read() == open(b, "rb").read()


def nvlink_matches(tmp, out, ins):
    problems = link_compare.set_problems(out, ins, str(tmp))
    assert not problems, "\n".join(problems)


def test_nvlink_library_members_in_order(tmp_path):
    """nvlink -g l3_a.o libl3.a = the -dc cubins of all three members, archive order"""
    nvlink_matches(tmp_path, os.path.join(AR, "lib.link.g.cubin"),
                   [os.path.join(BARE, "l3_a.rdc.cubin"), os.path.join(BARE, "l3_c.rdc.cubin"),
                    os.path.join(AR, "unused.sm_90.rdc.cubin"), os.path.join(BARE, "l3_b.rdc.cubin")])


def test_library_is_its_members(tmp_path):
    """cudwarf link l3_a.o libl3.a = cudwarf link of its members in archive order, byte for byte"""
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    p = run("link", "--arch", "sm_90", "-o", a, os.path.join(HOST, "l3_a.o"), LIB)
    q = run("link", "--arch", "sm_90", "-o", b, os.path.join(HOST, "l3_a.o"), os.path.join(HOST, "l3_c.o"),
            os.path.join(AR, "unused.o"), os.path.join(HOST, "l3_b.o"))
    assert p.returncode == 0 and q.returncode == 0 and same_file(a, b), p.stderr + q.stderr


def test_sm_follows_cubin(tmp_path):
    """no --arch: the library's SM follows the cubin before it"""
    p = run("link", "-o", tmp_path / "c", os.path.join(BARE, "l3_a.rdc.cubin"), LIB)
    assert p.returncode == 0, p.stderr


def test_list_names_members():
    """list: an archive, images named by member (unused.o: its sm_80 and sm_90 images)"""
    listing = run("list", "--json", LIB)
    assert listing.returncode == 0, listing.stderr
    images = json.loads(listing.stdout)[0]["images"]
    assert '"type":"archive"' in listing.stdout and sum(i.get("member") == "unused.o" for i in images) == 2, \
        listing.stdout[:300]


@pytest.fixture
def devrt_image(devrt, tmp_path):
    """libcudadevrt.a's sm_90 image, extracted"""
    x = run("extract", "-o", tmp_path / "devrt", devrt)
    img = [f for f in x.stdout.split() if f.endswith("sm_90.cubin")]
    assert x.returncode == 0 and len(img) == 1, x.stdout + x.stderr
    return img[0]


def test_devrt_extract(devrt_image):
    """extract: libcudadevrt.a's sm_90 image"""
    assert os.path.exists(devrt_image)


def test_nvlink_devrt_member_taken(devrt_image, tmp_path):
    """nvlink -g -lcudadevrt of a dynamic-parallelism program = the program + the member's sm_90 image"""
    nvlink_matches(tmp_path, os.path.join(AR, "cdp.link.g.cubin"), [os.path.join(AR, "cdp.rdc.cubin"), devrt_image])


def test_devrt_member_taken(devrt, devrt_image, tmp_path):
    """cudwarf link cdp.rdc.cubin libcudadevrt.a = the link with the member's image given"""
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    cdp = os.path.join(AR, "cdp.rdc.cubin")
    p, q = run("link", "-o", a, cdp, devrt), run("link", "-o", b, cdp, devrt_image)
    assert p.returncode == 0 and q.returncode == 0 and same_file(a, b), p.stderr + q.stderr


def test_nvlink_devrt_member_left(devrt, tmp_path):
    """nvlink -g -lcudadevrt of a program without dynamic parallelism = the program alone"""
    nvlink_matches(tmp_path, os.path.join(AR, "nocdp.link.g.cubin"), [os.path.join(BARE, "l3_b.rdc.cubin")])


def test_devrt_member_left(devrt, tmp_path):
    """cudwarf link l3_b.rdc.cubin libcudadevrt.a = cudwarf link l3_b.rdc.cubin"""
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    l3b = os.path.join(BARE, "l3_b.rdc.cubin")
    p, q = run("link", "-o", a, l3b, devrt), run("link", "-o", b, l3b)
    assert p.returncode == 0 and q.returncode == 0 and same_file(a, b), p.stderr + q.stderr


def test_devrt_first_no_arch(devrt, tmp_path):
    """libcudadevrt.a first, no --arch: one message, exit 1, nothing written"""
    o = tmp_path / "none"
    p = run("link", "-o", o, devrt, os.path.join(BARE, "l3_b.rdc.cubin"))
    assert p.returncode == 1 and "--arch" in p.stderr and "libcudadevrt.a before any object" in p.stderr and \
        p.stderr.count("\n") == 1 and not o.exists(), p.stderr


def malformed(good):
    return {
        "member header cut short": (good[:8 + 30], r"member header runs past"),
        "member size that is no number": (good[:8 + 48] + b"12x4      " + good[8 + 58:], r"not a decimal"),
        "member larger than the archive": (good[:8 + 48] + b"9999999999" + good[8 + 58:], r"runs past the end"),
        "thin archive": (b"!<thin>\n" + good[8:], r"thin archive"),
        "no device code": (b"!<arch>\n" + b"notes.txt/      0           0     0     644     6         `\nhello\n",
                           r"no CUDA device code"),
    }


@pytest.mark.parametrize("case", list(malformed(b"")))
def test_malformed_archive(case, tmp_path, check):
    """one error, exit 1, nothing written; list on it: the same error"""
    data, pat = malformed(open(LIB, "rb").read())[case]
    path, o = tmp_path / "bad.a", tmp_path / "out"
    path.write_bytes(data)
    p = run("link", "--arch", "sm_90", "-o", o, os.path.join(BARE, "l3_a.rdc.cubin"), path)
    check("link: one error, exit 1, nothing written", p.returncode == 1 and re.search(pat, p.stderr) is not None and
          p.stderr.count("\n") == 1 and not o.exists(), p.stderr)
    q = run("list", path)
    check("list on it: the same error", q.returncode == 1 and re.search(pat, q.stderr) is not None, q.stderr)
