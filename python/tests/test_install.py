"""`pip install .` from the checkout into a fresh venv, offline: the package
and its library install, and from another directory with no environment
variable `cudwarf.open(...).symbolize` answers as `cudwarf addr2line -f -i`
does (docs: the README's quick start)."""
import os, subprocess, sys, venv

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CUDWARF = os.environ.get("CUDWARF", os.path.join(ROOT, "build", "cudwarf"))
CUBIN = os.path.join(ROOT, "tests", "fixtures", "inline_sm90_lineinfo.rdc.cubin")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    d = tmp_path_factory.mktemp("pip")
    env_dir = d / "venv"
    try:
        venv.EnvBuilder(with_pip=True).create(env_dir)
    except Exception as e:  # noqa: BLE001 - no ensurepip here: say so
        pytest.skip(f"cannot make a venv with pip here ({e}); scripts/install-deps.sh installs python3-venv")
    pip = env_dir / "bin" / "pip"
    r = subprocess.run([str(pip), "install", "--no-index", "--quiet", ROOT], capture_output=True, text=True,
                       cwd=str(d), env={"PATH": os.environ["PATH"], "HOME": str(d)})
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return env_dir / "bin" / "python", d


def test_pip_install_offline_then_symbolize_anywhere(installed):
    py, d = installed
    loc = "shade_kernel+0x200"  # a short name, resolved
    code = ("import cudwarf, sys\n"
            "with cudwarf.open(sys.argv[1]) as f:\n"
            "    for x in f.symbolize(sys.argv[2]):\n"
            "        print(x.function); print(f'{x.file}:{x.line}')\n"
            "print(cudwarf.__file__)\n")
    r = subprocess.run([str(py), "-c", code, CUBIN, loc], capture_output=True, text=True, cwd=str(d),
                       env={"PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    got = r.stdout.splitlines()
    assert got[-1].startswith(str(d)), got[-1]  # the venv's copy, not the checkout's
    want = subprocess.run([CUDWARF, "addr2line", "-f", "-i", "-e", CUBIN, loc], capture_output=True, text=True)
    assert want.returncode == 0 and got[:-1] == want.stdout.splitlines()
