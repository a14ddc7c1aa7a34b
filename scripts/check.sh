#!/usr/bin/env bash
# make check: every test in build/, then again in build-asan/ (ASan+UBSan);
# both run whatever the first found, and the last line is the total of
# both: "total: N passed, N failed[, N skipped]".
#   scripts/check.sh MAKE BUILD [SUITE...]
set -u
make=$1 build=$2
shift 2
cd "$(dirname "$0")/.."
rm -f "$build/test-counts" build-asan/test-counts
jobs=-j$(nproc 2>/dev/null || echo 2) # the builds on every core (the tests run one at a time)
$make $jobs tests && tests/run.sh "$build" "$@"
rc1=$?
$make $jobs BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
    SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" tests &&
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 tests/run.sh build-asan "$@"
rc2=$?
read -r p1 f1 s1 <"$build/test-counts" 2>/dev/null || { p1=0 f1=1 s1=0; }
read -r p2 f2 s2 <build-asan/test-counts 2>/dev/null || { p2=0 f2=1 s2=0; }
echo "normal build: $p1 passed, $f1 failed, $s1 skipped; ASan+UBSan build: $p2 passed, $f2 failed, $s2 skipped"
p=$((p1 + p2)) f=$((f1 + f2)) s=$((s1 + s2))
if [ $s -gt 0 ]; then echo "total: $p passed, $f failed, $s skipped"; else echo "total: $p passed, $f failed"; fi
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ $f -eq 0 ]
