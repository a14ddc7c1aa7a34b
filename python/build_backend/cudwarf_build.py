"""The PEP 517 build backend of `pip install .`: builds libcudwarf with the
project's own Makefile and writes a wheel of the Python package with the
library beside it.  It needs nothing from a package index (pyproject.toml
declares no build requirements), so it works offline; what it needs is the
C toolchain and libraries scripts/install-deps.sh installs.

The wheel is py3-none-<platform>: the package is pure Python over ctypes,
and the shared library it carries is the platform's."""
import base64
import hashlib
import os
import subprocess
import sysconfig
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAME = "cudwarf"
SUMMARY = "Debug information of CUDA device ELF objects (cubins): the Python layer of libcudwarf"


def _version():
    for line in open(os.path.join(ROOT, "Makefile")):
        if line.startswith("VERSION ="):
            return line.split("=", 1)[1].strip()
    raise RuntimeError("no VERSION in the Makefile")


def _tag():
    return "py3-none-" + sysconfig.get_platform().replace("-", "_").replace(".", "_")


def _metadata(version):
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\nSummary: {SUMMARY}\n"
            "Requires-Python: >=3.8\nLicense-File: README.md\nDescription-Content-Type: text/markdown\n\n" + readme)


def _build_library():
    """build/libcudwarf.so, as `make` builds it (at once when it is there)."""
    build = os.path.join(ROOT, "build")
    r = subprocess.run(["make", "-C", ROOT, f"-j{os.cpu_count() or 1}", "build/libcudwarf.so"],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("building libcudwarf failed (the C toolchain and libraries: scripts/install-deps.sh):\n" +
                           r.stdout[-2000:] + r.stderr[-2000:])
    return os.path.join(build, "libcudwarf.so")


def _record_line(arc, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arc},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    version = _version()
    d = os.path.join(metadata_directory, f"{NAME}-{version}.dist-info")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata(version))
    return os.path.basename(d)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    lib = _build_library()
    files = {}
    pkg = os.path.join(ROOT, "python", NAME)
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py") or name == "py.typed":
            files[f"{NAME}/{name}"] = open(os.path.join(pkg, name), "rb").read()
    files[f"{NAME}/libcudwarf.so"] = open(lib, "rb").read()
    info = f"{NAME}-{version}.dist-info"
    files[f"{info}/METADATA"] = _metadata(version).encode()
    files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: cudwarf_build\nRoot-Is-Purelib: false\n"
                              f"Tag: {_tag()}\n").encode()
    record = [_record_line(arc, data) for arc, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = f"{NAME}-{version}-{_tag()}.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in files.items():
            zi = zipfile.ZipInfo(arc, date_time=(2026, 1, 1, 0, 0, 0))
            zi.external_attr = (0o755 if arc.endswith(".so") else 0o644) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return wheel


def build_sdist(sdist_directory, config_settings=None):
    """The tracked files of the checkout (git ls-files), as NAME-VERSION.tar.gz."""
    import tarfile
    version = _version()
    base = f"{NAME}-{version}"
    out = os.path.join(sdist_directory, base + ".tar.gz")
    names = subprocess.run(["git", "-C", ROOT, "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    with tarfile.open(out, "w:gz") as t:
        for n in names:
            t.add(os.path.join(ROOT, n), arcname=f"{base}/{n}")
        pkg_info = os.path.join(sdist_directory, "PKG-INFO.tmp")
        open(pkg_info, "w", encoding="utf-8").write(_metadata(version))
        t.add(pkg_info, arcname=f"{base}/PKG-INFO")
        os.remove(pkg_info)
    return os.path.basename(out)
