#!/usr/bin/env bash
# The public header's two parts (include/cudwarf.h): a program sees the
# stable chapters by default, and the experimental ones (cudw_resources,
# the PTX stage-1 calls, correlation) only when it defines
# CUDW_EXPERIMENTAL -- compiled here both ways, as a user's program is.
#   tests/tools/experimental.sh   ("ok"/"FAIL" lines)
set -u
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/uses.c" <<'C'
#include "cudwarf.h"
int f(cudw_file *file);
int f(cudw_file *file) { cudw_func_resources *r; size_t n; return cudw_resources(file, &r, &n); }
C
cat >"$work/stable.c" <<'C'
#include "cudwarf.h"
int f(cudw_file *file);
int f(cudw_file *file) { return cudw_symbol_count(file, 0) > 0; }
C
cc=${CC:-cc}
flags="-std=c11 -Wall -Wextra -Werror -Iinclude -c"
if $cc $flags -o "$work/a.o" "$work/stable.c" 2>"$work/e1"; then echo "ok   a program of the stable chapters compiles"
else echo "FAIL the stable chapters do not compile: $(head -3 "$work/e1")"; fi
if $cc $flags -o "$work/b.o" "$work/uses.c" 2>/dev/null; then echo "FAIL cudw_resources is seen without CUDW_EXPERIMENTAL"
else echo "ok   cudw_resources is not seen without CUDW_EXPERIMENTAL"; fi
if $cc $flags -DCUDW_EXPERIMENTAL -o "$work/c.o" "$work/uses.c" 2>"$work/e2"; then echo "ok   ... and is with it"
else echo "FAIL with CUDW_EXPERIMENTAL, cudw_resources does not compile: $(head -3 "$work/e2")"; fi
