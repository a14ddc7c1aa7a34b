#!/bin/sh
# A program that defines the library's internal helper names (every global
# the library's own objects define that is not cudw_*: arena_alloc, wb_put,
# cache_get...) links libcudwarf.a statically and libcudwarf.so dynamically
# and still gets the README example's answer.  Before the archive's hidden
# symbols were made local, the static link failed on duplicate definitions;
# before the version script, the program's arena_alloc replaced the
# library's and cudw_open failed on a valid cubin.
# usage: clash.sh BUILD_DIR WORK_DIR   (prints one ok/FAIL line per link)
set -u
build=$1 work=$2
cubin=tests/fixtures/tiny_sm90_G.rdc.cubin
want=$("$build/examples/list_functions" $cubin 2>&1)
names=$(find "$build/src" -name '*.o' -exec nm -g --defined-only {} + |
        awk 'NF == 3 && $2 ~ /^[TDBR]$/ && $3 !~ /^cudw_/ {print $3}' | sort -u)
n=$(echo "$names" | grep -c .)
if [ "$n" -lt 10 ]; then echo "FAIL clash.sh: only $n internal names found in $build/src"; exit 1; fi
# each name a function that aborts: called by the library, the run fails
{ echo '#include <stdlib.h>'; for s in $names; do echo "void $s(void); void $s(void) { abort(); }"; done; } >"$work/clash.c"
libs=$(pkg-config --libs libelf 2>/dev/null || echo -lelf)
rc=0
for how in static shared; do
    if [ $how = static ]; then lib="$build/libcudwarf.a $libs -lzstd -llz4 -liberty -lpthread"
    else
        soname=$(objdump -p "$build/libcudwarf.so" | awk '$1 == "SONAME" {print $2}')
        ln -sf "$PWD/$build/libcudwarf.so" "$work/${soname:-libcudwarf.so}"  # the name it is loaded by
        lib="-L$build -Wl,-rpath,$work -l:libcudwarf.so"
    fi
    # the sanitizer build's objects need the sanitizer runtime in the link
    san=$(case "$build" in *asan*) echo "-fsanitize=address,undefined";; esac)
    # shellcheck disable=SC2086
    if ! out=$(cc -std=c11 -Iinclude $san -o "$work/clash_$how" examples/list_functions.c "$work/clash.c" $lib 2>&1); then
        echo "FAIL $how link with $n internal names defined by the program: $(echo "$out" | grep -m1 -i 'multiple\|error')"
        rc=1; continue
    fi
    got=$("$work/clash_$how" $cubin 2>&1)
    if [ "$got" = "$want" ]; then echo "ok   $how link: the program defines all $n internal names, the library keeps its own"
    else echo "FAIL $how link: '$got', want '$want'"; rc=1; fi
done
exit $rc
