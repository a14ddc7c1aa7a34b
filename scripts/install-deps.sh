#!/usr/bin/env bash
# Install what building and testing cudwarf needs, from Debian's packages,
# when it is missing.  Safe to run again; does nothing when all is there.
#   build:  cc, make, pkg-config, libelf (elfutils), libzstd, liblz4, libiberty (demangler), cmocka
#   tests:  python3, python3-pytest and python3-venv (the Python package's tests, pip install .), llvm-dwarfdump,
#           eu-readelf, GNU readelf, libdw (the row oracle), chromium (the HTML report, headless)
set -eu
need=()
have_header() { printf '#include <%s>\n' "$1" | cc -E -x c - >/dev/null 2>&1; }
command -v cc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)
command -v pkg-config >/dev/null || need+=(pkg-config)
have_header libelf.h || need+=(libelf-dev)
have_header gelf.h || need+=(libelf-dev)
have_header cmocka.h || need+=(libcmocka-dev)
have_header elfutils/libdw.h || need+=(libdw-dev)
have_header libiberty/demangle.h || need+=(libiberty-dev)
have_header zstd.h || need+=(libzstd-dev)
have_header lz4.h || need+=(liblz4-dev)
command -v python3 >/dev/null || need+=(python3)
/usr/bin/python3 -c 'import pytest' 2>/dev/null || need+=(python3-pytest)
/usr/bin/python3 -c 'import ensurepip' 2>/dev/null || need+=(python3-venv)
command -v llvm-dwarfdump >/dev/null || need+=(llvm)
command -v eu-readelf >/dev/null || need+=(elfutils)
command -v readelf >/dev/null || need+=(binutils)
command -v chromium >/dev/null || need+=(chromium)
[ ${#need[@]} -eq 0 ] && exit 0
mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
echo "install-deps: installing ${need[*]}" >&2
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null; then SUDO=sudo; else
        echo "install-deps: not root; install these packages: ${need[*]}" >&2
        exit 1
    fi
else
    SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
