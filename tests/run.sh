#!/usr/bin/env bash
# Run every test against one build directory (build/ or build-asan/):
#   unit tests (cmocka), command-line tests, the hand-made .nv_debug_info_ptx
#   object, and the DIE trees of real cubins (fixtures, and cubins compiled
#   here when nvcc is present) against llvm-dwarfdump.
# Ends with one line "N passed, N failed[, N skipped]"; exit 1 if anything failed.
#   tests/run.sh [BUILD [SUITE...]]   only the named suites (make check SUITES="dies lines")
#   tests/run.sh --list               the suites' names
#   TEST_FILTER='*crlf*' tests/run.sh build unit    only the unit cases of that name (cmocka wildcards)
set -u
build=${1:-build}
[ $# -gt 0 ] && shift
SUITES="$*" # the suites to run (names in the "if suite NAME" lines below); none: all
cd "$(dirname "$0")/.."
if [ "$build" = --list ]; then
    grep -o '^ *if suite [a-z0-9-]*; then' "$0" | awk '{print $3}' | tr -d ';'
    exit 0
fi
for s in $SUITES; do
    grep -q "^ *if suite $s; then" "$0" || { echo "tests/run.sh: no suite '$s' (tests/run.sh --list names them)"; exit 2; }
done
pass=0; fail=0; skip=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

suite_times=() # "NAME START" of each suite run, for the timing line at the end
suite() { # NAME: whether to run it (every suite when none was named)
    if [ -n "$SUITES" ]; then
        case " $SUITES " in *" $1 "*) ;; *) return 1 ;; esac
    fi
    suite_times+=("$1 $SECONDS")
    return 0
}

# cubins tests/gen.sh compiled, for the suites that use them (the gen suite
# compiles them again; named alone, a suite uses what an earlier run left)
# (build/gen/stage1: the PTX stage-1 programs, for the ptx-lines suite alone, which
# checks their rows and numbering; the other suites take the rest)
gen_cubins() { find build/gen -name '*.cubin' -not -path '*/stage1/*' 2>/dev/null | sort; }
gen=$(gen_cubins)

count_lines() { # FILE: "ok"/"FAIL" lines, and "skip..." lines (a part that could not run here: counted)
    local p f s
    p=$(grep -c '^ok' "$1"); f=$(grep -c '^FAIL' "$1"); s=$(grep -c '^skip' "$1")
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
    grep '^FAIL' "$1" -A5 | head -40
}

pytest_suite() { # SUITE [PYTEST ARGS...]: the pytest tests marked SUITE ("-" as "_"), counted
    local name=$1 out="$log/pytest-$1.txt" last p f e s
    shift
    /usr/bin/python3 -m pytest -q -rfEs --build "$build" -m "${name//-/_}" "$@" >"$out" 2>&1
    last=$(tail -1 "$out")
    p=$(grep -oE '[0-9]+ passed' <<<"$last" | cut -d' ' -f1)
    f=$(grep -oE '[0-9]+ failed' <<<"$last" | cut -d' ' -f1)
    e=$(grep -oE '[0-9]+ errors?' <<<"$last" | cut -d' ' -f1)
    s=$(grep -oE '[0-9]+ skipped' <<<"$last" | cut -d' ' -f1)
    pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0} + ${e:-0})); skip=$((skip + ${s:-0}))
    if [ -z "$p$f$e$s" ]; then echo "FAIL pytest -m ${name//-/_} ran nothing"; fail=$((fail + 1)); cat "$out" | tail -20; fi
    [ "${f:-0}${e:-0}" = 00 ] || sed -n '/= FAILURES =\|= ERRORS =/,$p' "$out" | head -60
    grep '^SKIPPED' "$out" | head -10
    echo "$last"
}

if suite unit; then
    echo "== unit tests ($build)"
    for t in "$build"/tests/test_*; do
        [ -x "$t" ] || continue
        if "$t" >"$log/u.txt" 2>&1; then r=0; else r=1; fi
        p=$(sed -n 's/.*\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log/u.txt" | tail -1)
        f=$(sed -n 's/.*\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log/u.txt" | tail -1)
        pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
        if [ $r -ne 0 ] && [ "${f:-0}" = 0 ]; then fail=$((fail + 1)); fi
        echo "$(basename "$t"): ${p:-0} passed, ${f:-0} failed"
        [ $r -eq 0 ] || cat "$log/u.txt"
    done
fi

if suite leb128; then
    echo "== bulk LEB128 decoders (bench/leb128.c) = the library's, on random streams"
    "$build/bench/leb128" --check 20000 >"$log/leb.txt" 2>&1 || echo "FAIL bench/leb128 --check: exit $?" >>"$log/leb.txt"
    count_lines "$log/leb.txt"
fi

if suite example; then
    echo "== the README's library example"
    out=$("$build/examples/list_functions" tests/fixtures/tiny_sm90_G.rdc.cubin 2>&1)
    if [ "$out" = "0x4a _Z11tiny_kernelPii" ]; then echo "ok   examples/list_functions"; pass=$((pass + 1));
    else echo "FAIL examples/list_functions: $out"; fail=$((fail + 1)); fi
fi

if suite contract; then
    echo "== the command line's contract (docs/cli.md): every command x good, missing, directory, empty, host, truncated, bad option, unwritable"
    pytest_suite contract tests/cli/contract.py
fi

if suite exports; then
    echo "== the library exports the API only (cudw_*): nm -D, and a program defining its internal names"
    extra=$(nm -D --defined-only "$build/libcudwarf.so" | awk '$2 != "A" {print $3}' | grep -v '^cudw_' | head -5)
    if [ -z "$extra" ] && nm -D --defined-only "$build/libcudwarf.so" | grep -q ' T cudw_symbolize@'; then
        echo "ok   nm -D: $(nm -D --defined-only "$build/libcudwarf.so" | grep -c ' T cudw_') cudw_ functions, nothing else"; pass=$((pass + 1))
    else echo "FAIL libcudwarf.so exports: $extra"; fail=$((fail + 1)); fi
    tests/tools/clash.sh "$build" "$log" >"$log/clash.txt" 2>&1 || echo "FAIL clash.sh: exit $?" >>"$log/clash.txt"
    tests/tools/experimental.sh >>"$log/clash.txt" 2>&1
    count_lines "$log/clash.txt"
    grep "^ok" "$log/clash.txt"
fi

if suite structure; then
    echo "== the modules of src/ and tools/ call each other without a cycle (nm of the objects)"
    python3 tests/tools/module_graph.py "$build" >"$log/mg.txt" 2>&1 || echo "FAIL module_graph.py: exit $?" >>"$log/mg.txt"
    count_lines "$log/mg.txt"
    grep '^ok' "$log/mg.txt"
    echo "== every source file named in docs/architecture.md, none over 1,000 lines, no stage-1 function over 120"
    python3 tests/tools/layout_check.py >"$log/layout.txt" 2>&1 || echo "FAIL layout_check.py: exit $?" >>"$log/layout.txt"
    count_lines "$log/layout.txt"
    grep '^ok' "$log/layout.txt"
fi

if suite cli; then
    echo "== command line"
    pytest_suite cli tests/cli/test_cli.py
fi

if suite ptx-info || suite dies || suite frames || suite misc || suite external || suite resources || suite lines || suite gen; then
    if ! command -v llvm-dwarfdump >/dev/null; then
        echo "FAIL llvm-dwarfdump is not installed (scripts/install-deps.sh installs it)"
        fail=$((fail + 1))
    else
        if suite ptx-info; then
            echo "== hand-made .nv_debug_info_ptx vs llvm-dwarfdump"
            pytest_suite ptx-info tests/ref/compare_dies.py
        fi

        if suite dies; then
            echo "== DIE trees of the fixtures vs llvm-dwarfdump"
            pytest_suite dies tests/ref/compare_dies.py
        fi

        if suite frames; then
            echo "== .debug_frame of the fixtures vs llvm-dwarfdump"
            pytest_suite frames tests/ref/compare_frames.py
        fi

        if suite misc; then
            echo "== .debug_loc, .debug_str, .debug_pubnames/pubtypes of the fixtures vs llvm-dwarfdump"
            pytest_suite misc tests/ref/compare_misc.py
        fi

        if suite external; then
            echo "== binaries of CUDA 6.5-12.5 and synthetic old-toolkit cubins (tests/fixtures/external)"
            pytest_suite external tests/ref/check_external.py
        fi

        if suite resources; then
            echo "== resources per function vs ptxas -v (tests/src/resources, nbody; sm_75-120, -lineinfo/-G/-rdc)"
            pytest_suite resources tests/ref/check_resources.py
        fi

        if suite lines; then
            echo "== line rows of the fixtures vs libdw"
            pytest_suite lines tests/ref/compare_lines.py
        fi

        if suite gen; then
            echo "== cubins compiled now: DIE trees vs llvm-dwarfdump, line rows vs libdw"
            tests/gen.sh build/gen
            gen=$(gen_cubins)
            # the sanitizer build reads every fourth (all kinds are in each
            # quarter): the values are the normal build's to check, and the
            # whole set twice took a fifth of CI's time
            [ "$build" = build ] || gen=$(echo "$gen" | awk 'NR % 4 == 1')
            if [ -z "$gen" ]; then
                echo "skipped: no nvcc"
                skip=$((skip + 1))
            else
                # DIE, frame and line views of the cubins (sm_75/90/100, -G/-lineinfo, whole/-dc/nvlink;
                # the tests take every fourth under ASan, as above: suite_env.gen_sample)
                pytest_suite gen tests/ref/compare_dies.py tests/ref/compare_frames.py tests/ref/compare_lines.py
                echo "== fatbins (fatbinary, every compression mode) and host builds (nvcc)"
                pytest_suite gen tests/ref/check_fatbin.py
            fi
        fi
    fi
fi

if suite docs; then
    echo "== the README's and the man page's examples print what they show (after tests/gen.sh: some use build/gen)"
    pytest_suite docs tests/cli/doc_examples.py
fi

if suite addr2line; then
    echo "== addr2line's inline stacks equal the chains in the rows"
    # zerobase_*: the rows name wrong functions (nvlink's zero .debug_str base); build/gen's copy of it is
    # checked with its link inputs at hand
    pytest_suite addr2line tests/ref/check_addr2line.py
fi

if suite inline-dies; then
    echo "== -G inline stacks from the DIEs: addr2line -i = llvm-dwarfdump's inlined subroutines"
    pytest_suite inline-dies tests/ref/check_inline_dies.py
fi

if suite reencode; then
    echo "== line programs re-encoded byte for byte (opcodes -> cudw_line_encode_ops; rows -> cudw_line_encode where rows say all)"
    "$build/tests/reencode" tests/fixtures/*.cubin ${gen:-} >"$log/re.txt" 2>&1
    count_lines "$log/re.txt"
    awk '/^ok/ {o += $(NF-11); n += $(NF-9); r += $(NF-3)} END {printf "%d line sections, %d tables identical from their opcodes, %d from their rows\n", NR, o, r}' "$log/re.txt"
fi

if suite mutate; then
    echo "== mutation suite: truncations and byte flips of real cubins, every parser"
    # the sanitizer build flips a third as many bytes (and mutants_cli.py
    # runs 150 mutants, not 500): the same parsers, and under ASan the full
    # count was two minutes of CI's fifteen
    flips=1000; [ "$build" = build ] || flips=300
    "$build/tests/mutate" --flips $flips tests/fixtures/*.cubin tests/fixtures/external/*.cubin >"$log/mu.txt" 2>&1
    count_lines "$log/mu.txt"
    tail -1 "$log/mu.txt"
    pytest_suite mutate tests/cli/mutants_cli.py
fi

if suite verify; then
    echo "== cudwarf verify: fixtures clean, corrupted copies flagged at the right place"
    pytest_suite verify tests/cli/verify_malformed.py
fi

if suite fuzz-replay; then
    echo "== fuzz corpora and crash reproducers, replayed"
    for t in $(ls tests/fuzz/corpus); do
        "$build/tests/replay_$t" "$t" tests/fuzz/corpus/$t tests/fuzz/crashes/$t >"$log/rp.txt" 2>&1 ||
            echo "FAIL replay $t: exit $?" >>"$log/rp.txt"
        count_lines "$log/rp.txt"
        cat "$log/rp.txt"
    done
fi

if suite reg-sass; then
    echo "== .nv_debug_info_reg_sass records against the PTX text and the symbols"
    pytest_suite reg-sass tests/ref/check_reg_sass.py
fi

if suite macinfo; then
    echo "== .debug_macinfo vs GNU readelf (a hand-made object with every entry type, and the fixtures)"
    pytest_suite macinfo tests/ref/check_macinfo.py
fi

if suite aranges; then
    echo "== .debug_aranges vs llvm-dwarfdump, .debug_ranges vs eu-readelf (a hand-made object)"
    pytest_suite aranges tests/ref/check_ranges.py
fi

if suite pubnames; then
    echo "== .debug_pubnames/.debug_pubtypes built from .debug_info equal ptxas's, byte for byte"
    pytest_suite pubnames tests/ref/check_pubnames.py
fi

if suite link; then
    echo "== cudwarf link vs nvlink -g: sections, relocations, inlined-function names (2, 3, 10 objects)"
    pytest_suite link tests/ref/check_link.py
fi

if suite containers; then
    echo "== fatbin containers in any section (scan, wrappers), -rdc executables, --sm, no device code"
    pytest_suite containers tests/cli/containers.py
fi

if suite remap; then
    echo "== cudwarf remap: paths rewritten, lines/DIEs/verify/llvm --verify otherwise the input's; nvlink -g links the results"
    # (the sanitizer build: every eighth compiled cubin, and no library)
    libs=; [ "$build" = build ] && libs=--libs
    pytest_suite remap tests/cli/remap.py $libs
fi

if suite size; then
    echo "== cudwarf size: classes = readelf's section sizes; stored = the containers' bytes; duplicates"
    libs=; [ "$build" = build ] && libs=--libs
    pytest_suite size tests/cli/size.py $libs
fi

if suite libraries; then
    echo "== NVIDIA's libraries (/usr/local/cuda/lib64): every container an independent scan finds; -j 2 = -j 1"
    quick=; [ "$build" = build ] || quick=--quick  # under ASan two libraries: the scan's code is the same
    pytest_suite libraries tests/cli/libraries.py $quick
fi

if suite link-inputs; then
    echo "== cudwarf link of host objects (nvcc -dc -c, two SMs) = link of the -dc cubins; --arch, --symbols from -dlink"
    pytest_suite link-inputs tests/cli/link_inputs.py
fi

if suite archives; then
    echo "== static libraries as link inputs (nvcc -lib, libcudadevrt.a) vs nvlink -g"
    pytest_suite archives tests/cli/link_archive.py
fi

if suite strip; then
    echo "== cudwarf strip: the rest byte for byte; stripped + --keep-debug companion = the original"
    # (the sanitizer build: the fixtures and every third compiled link)
    pytest_suite strip tests/ref/check_strip.py
fi

if suite ptx-lines; then
    echo "== ptx-lines: PTX stage 1 byte for byte against ptxas (fixtures, build/gen/stage1)"
    quick=; [ "$build" = build ] || quick=--quick  # under ASan a sample of the compiled cubins
    pytest_suite ptx-lines tests/cli/ptx_lines.py $quick
fi

if suite correlate; then
    echo "== correlate: source <-> PTX <-> SASS against lines/addr2line/size and the PTX text; the HTML page in Chromium"
    pytest_suite correlate tests/cli/correlate.py
fi

if suite sass-ptx; then
    echo "== .nv_debug_line_sass rows point at PTX instructions of the right function"
    pytest_suite sass-ptx tests/ref/check_sass_ptx.py
fi

if suite constants; then
    echo "== include/cudwarf/dwarf.h, nvidia.h: every constant = the library's name for its value"
    if [ "$build" != build ]; then
        echo "skipped: ctypes loads the library into an uninstrumented Python; the normal build's run tests it"
    else
        python3 tests/tools/check_constants.py "$PWD/$build/libcudwarf.so" include/cudwarf/dwarf.h include/cudwarf/nvidia.h >"$log/const.txt" 2>&1 ||
            echo "FAIL check_constants.py: exit $?" >>"$log/const.txt"
        count_lines "$log/const.txt"
        tail -1 "$log/const.txt"
    fi
fi

if suite names; then
    echo "== names as people type them, misses that say why, template lines, images without code (nbody.cu)"
    pytest_suite names tests/ref/check_names.py
fi

if suite install; then
    echo "== make install into a scratch prefix; the README's dynamic and static link recipes"
    if [ "$build" != build ]; then
        echo "skipped: the normal build's run installs and links"; skip=$((skip + 1))
    else
        pfx="$log/prefix"
        make -s BUILD="$build" install PREFIX="$pfx" >"$log/inst.txt" 2>&1 || echo "FAIL make install: exit $?" >>"$log/inst.txt"
        export PKG_CONFIG_PATH="$pfx/lib/pkgconfig"
        want="0x4a _Z11tiny_kernelPii"
        # shellcheck disable=SC2046
        cc -o "$log/dyn" examples/list_functions.c $(pkg-config --cflags --libs cudwarf) 2>>"$log/inst.txt" &&
            [ "$(LD_LIBRARY_PATH="$pfx/lib" "$log/dyn" tests/fixtures/tiny_sm90_G.rdc.cubin)" = "$want" ] &&
            LD_LIBRARY_PATH="$pfx/lib" ldd "$log/dyn" | grep -q "$pfx/lib/libcudwarf.so" && echo "ok   dynamic: pkg-config --cflags --libs, runs from the prefix" >>"$log/inst.txt" ||
            echo "FAIL dynamic link recipe" >>"$log/inst.txt"
        # shellcheck disable=SC2046
        cc -o "$log/sta" examples/list_functions.c $(pkg-config --cflags cudwarf) $(pkg-config --variable=static_libs cudwarf) 2>>"$log/inst.txt" &&
            [ "$("$log/sta" tests/fixtures/tiny_sm90_G.rdc.cubin)" = "$want" ] && ! ldd "$log/sta" | grep -q libcudwarf &&
            echo "ok   static: --variable=static_libs, no libcudwarf.so needed" >>"$log/inst.txt" ||
            echo "FAIL static link recipe (ldd: $(ldd "$log/sta" 2>&1 | grep cudwarf))" >>"$log/inst.txt"
        unset PKG_CONFIG_PATH
        count_lines "$log/inst.txt"
    fi
fi

if suite golden; then
    echo "== golden output: the main commands' text on the fixtures, byte for byte (tests/golden)"
    pytest_suite golden tests/cli/test_golden.py
fi

if suite python; then
    echo "== the Python package (python/cudwarf) against the command line"
    if [ "$build" != build ]; then
        echo "skipped: ctypes loads the library into an uninstrumented Python; the normal build's run tests it"
    elif ! /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
        echo "FAIL python3-pytest is not installed (scripts/install-deps.sh installs it)"; fail=$((fail + 1))
    else
        CUDWARF="$build/cudwarf" CUDWARF_LIB="$PWD/$build/libcudwarf.so" /usr/bin/python3 -m pytest -q -p no:cacheprovider \
            python/tests >"$log/py.txt" 2>&1
        p=$(tail -1 "$log/py.txt" | grep -oE '[0-9]+ passed' | cut -d' ' -f1)
        f=$(tail -1 "$log/py.txt" | grep -oE '[0-9]+ (failed|error)' | cut -d' ' -f1)
        pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
        [ -z "$p$f" ] && { echo "FAIL pytest did not run"; fail=$((fail + 1)); }
        [ "${f:-0}" = 0 ] || grep -E '^(FAILED|E )' "$log/py.txt" | head -20
        tail -1 "$log/py.txt"
    fi
fi

# where the time went (CI has about 15 minutes for both passes)
printf '%s\n' "${suite_times[@]}" "end $SECONDS" |
    awk 'NR > 1 { d[prev] = $2 - t } { prev = $1; t = $2 } END { for (k in d) if (d[k] >= 5) printf "%s %ds\n", k, d[k] }' |
    sort -k2 -t' ' -rn | tr '\n' ' ' | sed 's/^/suite seconds: /; s/ $/\n/'
if [ $skip -gt 0 ]; then
    echo "$pass passed, $fail failed, $skip skipped"
else
    echo "$pass passed, $fail failed"
fi
# for make check's total of both builds (scripts/check.sh)
echo "$pass $fail $skip" >"$build/test-counts"
[ $fail -eq 0 ]
