"""cudwarf link takes what nvcc -dc -c writes: host objects whose
__nv_relfatbin holds one relocatable cubin per SM (and PTX), here -G.  Linking the
sm_N images of the host objects must give, byte for byte, the link of the
same sources compiled to bare -dc cubins (tests/gen.sh builds both in
build/gen; skipped, saying so, when it has not: nvcc absent); with several
SMs and no --arch, or an SM the inputs lack, nothing is written and the
error says why.  --symbols also takes nvcc -dlink's host object.

    python3 -m pytest -m link_inputs
"""
import glob
import os
import re

import pytest

from suite_env import GEN, run, short

pytestmark = pytest.mark.link_inputs

HOSTOBJ = os.path.join(GEN, "hostobj")
VARIANTS = os.path.join(HOSTOBJ, "variants.o")  # sm_90 and sm_90a images of l3_a


def bare(sm):
    return os.path.join(GEN, "link3", f"sm_{sm}", "G")


def read(path):
    return open(path, "rb").read()


@pytest.fixture(scope="module")
def hosts():
    found = sorted(glob.glob(os.path.join(HOSTOBJ, "l3_*.o")))
    if not found:
        pytest.skip(f"no host objects in {short(HOSTOBJ)} (tests/gen.sh builds them when nvcc is present)")
    return found


@pytest.fixture(scope="module")
def host_link(hosts, tmp_path_factory):
    """the link of the host objects' sm_90 images (several tests compare with it)"""
    out = str(tmp_path_factory.mktemp("link_inputs") / "h90")
    p = run("link", "--arch", "sm_90", "-o", out, *hosts)
    assert p.returncode == 0, p.stderr
    return out


@pytest.mark.parametrize("sm", [80, 90])
def test_host_objects_equal_cubins(sm, hosts, tmp_path):
    """link --arch sm_N of the host objects = link of the -dc cubins"""
    a, b = str(tmp_path / "h"), str(tmp_path / "c")
    p = run("link", "--arch", f"sm_{sm}", "-o", a, *hosts)
    q = run("link", "-o", b, *sorted(glob.glob(os.path.join(bare(sm), "*.rdc.cubin"))))
    assert p.returncode == 0 and q.returncode == 0 and read(a) == read(b), p.stderr + q.stderr


def test_symbols_from_dlink(hosts, tmp_path):
    """--symbols from nvcc -dlink's host object = from nvlink -g's cubin (__shared__ relocations resolved)"""
    a, b = str(tmp_path / "sa"), str(tmp_path / "sb")
    p = run("link", "--stats", "--arch", "sm_90", "--symbols", os.path.join(HOSTOBJ, "dlink.o"), "-o", a, *hosts)
    q = run("link", "--stats", "--arch", "sm_90", "--symbols", os.path.join(bare(90), "link.g.cubin"), "-o", b, *hosts)
    assert p.returncode == 0 and q.returncode == 0 and read(a) == read(b), p.stderr + q.stderr
    m = re.search(r"__shared__: (\d+) resolved from --symbols, 0 kept", p.stderr)
    assert m and int(m.group(1)) > 0, p.stderr


def test_two_sms_no_arch(hosts, tmp_path):
    """two SMs and no --arch: exit 1, names both, writes nothing"""
    out = tmp_path / "none"
    p = run("link", "-o", out, *hosts)
    assert p.returncode == 1 and "--arch" in p.stderr and "sm_80" in p.stderr and "sm_90" in p.stderr and \
        not out.exists(), p.stderr


def test_arch_absent(hosts, tmp_path):
    """--arch sm_75 absent: exit 1, names the input, writes nothing"""
    out = tmp_path / "none"
    p = run("link", "--arch", "sm_75", "-o", out, *hosts)
    assert p.returncode == 1 and "no sm_75 device ELF" in p.stderr and hosts[0] in p.stderr and not out.exists(), p.stderr


def test_sm_spellings(hosts, host_link, tmp_path):
    """--sm=90 and --arch=sm_90 = --arch sm_90"""
    a, b = str(tmp_path / "eq1"), str(tmp_path / "eq2")
    p, q = run("link", "--sm=90", "-o", a, *hosts), run("link", "--arch=sm_90", "-o", b, *hosts)
    assert p.returncode == 0 and q.returncode == 0 and read(a) == read(host_link) and read(b) == read(a), \
        p.stderr + q.stderr


# sm_90 and sm_90a share e_flags; only the fatbin entry (flag 0x100000) tells them apart
def test_variants_no_arch(hosts, tmp_path):
    """an object with sm_90 and sm_90a images, no --arch: exit 1, names both"""
    out = tmp_path / "none"
    p = run("link", "-o", out, VARIANTS)
    assert p.returncode == 1 and "is sm_90a" in p.stderr and "sm_90 code" in p.stderr and not out.exists(), p.stderr


@pytest.fixture(scope="module")
def variant_links(hosts, tmp_path_factory):
    """{arch: the link of variants.o's image of that arch}"""
    out = {}
    for arch in ("sm_90a", "sm_90"):
        out[arch] = str(tmp_path_factory.mktemp("variants") / arch)
        p = run("link", "--arch", arch, "-o", out[arch], VARIANTS)
        assert p.returncode == 0, p.stderr
    return out


def test_variant_90a(variant_links, tmp_path):
    """--arch sm_90a takes the arch-specific image: = link of the sm_90a -dc cubin"""
    b = str(tmp_path / "c90a")
    q = run("link", "-o", b, os.path.join(HOSTOBJ, "l3_a.sm_90a.rdc.cubin"))
    assert q.returncode == 0 and read(variant_links["sm_90a"]) == read(b), q.stderr


def test_variant_90(variant_links, tmp_path):
    """--arch sm_90 takes the plain image: = link of the sm_90 -dc cubin, not the sm_90a one"""
    b = str(tmp_path / "c90")
    q = run("link", "-o", b, os.path.join(bare(90), "l3_a.rdc.cubin"))
    a = read(variant_links["sm_90"])
    assert q.returncode == 0 and a == read(b) and a != read(variant_links["sm_90a"]), q.stderr


@pytest.mark.parametrize("sm", ["90a", "90"])
def test_addr2line_variant(sm, hosts):
    """addr2line --sm=N on the two-variant object = on the sm_N cubin"""
    cubin = (os.path.join(HOSTOBJ, "l3_a.sm_90a.rdc.cubin") if sm == "90a"
             else os.path.join(bare(90), "l3_a.rdc.cubin"))
    loc = "_Z2kaPi+0x80"
    p = run("addr2line", "-e", VARIANTS, f"--sm={sm}", "-fi", loc)
    q = run("addr2line", "-e", cubin, "-fi", loc)
    assert p.returncode == 0 and p.stdout == q.stdout and "l3_a.cu:" in p.stdout, p.stdout + p.stderr


def test_arch_usage(hosts, tmp_path):
    """--arch ninety: usage error (exit 2)"""
    out = tmp_path / "none"
    p = run("link", "--arch", "ninety", "-o", out, *hosts)
    assert p.returncode == 2 and not out.exists(), p.stderr
