#!/usr/bin/env bash
# Compile the test programs with the installed CUDA toolkit into OUT
# (default build/gen): whole-program cubins of the one-file program for
# sm_75, sm_90 and sm_100; relocatable (-dc) objects and nvlink -g links of
# them (2 objects on those SMs, 3 on sm_75/80/89/90/100/121, 10 on
# sm_90/100, 2 with dynamic shared memory on sm_75/90/100); CUB block
# primitives (-G, sm_75/90/100); -G and
# -lineinfo; PTX and ptxas cubins of the stage-1 programs (sm_75..120);
# two-SM host objects and an nvcc -dlink object; static
# libraries (nvcc -lib, libcudadevrt.a) with nvlink -g links of them.  Prints
# nothing and exits 0 when nvcc is absent, after saying so on stderr.
# Reuses outputs newer than the sources.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-build/gen}
NVCC=${NVCC:-$(command -v nvcc || true)}
[ -n "$NVCC" ] || { [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc; } || true
if [ -z "$NVCC" ]; then
    echo "gen.sh: nvcc not found: skipping the cubins compiled by the tests" >&2
    exit 0
fi
NVLINK=$(dirname "$NVCC")/nvlink
mkdir -p "$out"
src="$here/src"
stamp="$out/.stamp"
if [ -f "$stamp" ] && [ -z "$(find "$src" "$0" -newer "$stamp" 2>/dev/null)" ]; then
    exit 0
fi
# Independent groups of commands run as background jobs, as many as there
# are cores (nvcc is single-threaded; this halves the suite's wait on two
# cores); sync waits for them all and fails if any failed.
jobs_max=$(nproc 2>/dev/null || echo 2)
pids=()
bg() {
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do sleep 0.1; done
    "$@" &
    pids+=($!)
}
sync_jobs() {
    local p failed=0
    for p in "${pids[@]}"; do wait "$p" || failed=1; done
    pids=()
    [ $failed = 0 ] || { echo "gen.sh: a compile failed" >&2; exit 1; }
}
one_program() { # ARCH MODE
    local arch=$1 mode=$2 flag=-G d="$out/sm_$1/$2"
    [ "$mode" = lineinfo ] && flag=-lineinfo
    mkdir -p "$d"
    "$NVCC" -arch=sm_$arch $flag -cubin -DWHOLE -o "$d/kern.cubin" "$src/kern.cu"
    "$NVCC" -arch=sm_$arch $flag -ptx -DWHOLE -o "$d/kern.ptx" "$src/kern.cu"
    "$NVCC" -arch=sm_$arch $flag -dc -cubin -o "$d/kern.rdc.cubin" "$src/kern.cu"
    "$NVCC" -arch=sm_$arch $flag -dc -cubin -o "$d/other.rdc.cubin" "$src/other.cu"
    "$NVLINK" -arch=sm_$arch -g -o "$d/link.g.cubin" "$d/kern.rdc.cubin" "$d/other.rdc.cubin"
}
for arch in 75 90 100; do
    for mode in G lineinfo; do bg one_program $arch $mode; done
done
# multi-object links: link3 (3 units) on six SMs, link10 (10 units) on two;
# -G and -lineinfo; nvlink -g of the -dc objects in order
link_set() { # NAME SRCDIR ARCH MODE
    local d="$out/$1/sm_$3/$4" flag=-G objs=() f
    [ "$4" = lineinfo ] && flag=-lineinfo
    mkdir -p "$d"
    for f in "$2"/*.cu; do
        "$NVCC" -arch=sm_$3 $flag -dc -cubin -o "$d/$(basename "${f%.cu}").rdc.cubin" "$f"
        objs+=("$d/$(basename "${f%.cu}").rdc.cubin")
    done
    "$NVLINK" -arch=sm_$3 -g -o "$d/link.g.cubin" "${objs[@]}" 2>/dev/null
}
for arch in 75 80 89 90 100 121; do for mode in G lineinfo; do bg link_set link3 "$src/link3" $arch $mode; done; done
for arch in 90 100; do for mode in G lineinfo; do bg link_set link10 "$src/link10" $arch $mode; done; done
# extern __shared__ arrays (nvlink computes their sm_90 symbol values without the window)
for arch in 75 90 100; do bg link_set linkdyn "$src/linkdyn" $arch G; done
# CUB block and warp primitives (-G: deep inline stacks only the DIEs
# describe), the C++ name-index programs and the stage-1 programs below
# need nothing from each other: they start now
cub_block() { "$NVCC" -arch=sm_$1 -G -cubin -o "$out/cub/cub_block.sm_$1.cubin" "$src/cub_block.cu"; }
mkdir -p "$out/cub" "$out/names"
for arch in 75 90 100; do bg cub_block $arch; done
names_prog() {
    "$NVCC" -arch=sm_100 -G -cubin -o "$out/names/names_$1.cubin" "$src/names_$1.cu"
    "$NVCC" -arch=sm_100 -G -dc -cubin -o "$out/names/names_$1.rdc.cubin" "$src/names_$1.cu"
}
for n in cxx types statics; do bg names_prog $n; done
sync_jobs
host_and_archives() { # needs link3's sm_90 -G objects (synced above)
    # host objects (nvcc -dc -c) holding sm_80 and sm_90 -G code of link3,
    # and nvcc -dlink's host object of them (the sm_90 device link embedded)
    mkdir -p "$out/hostobj"
    for f in "$src"/link3/*.cu; do
        "$NVCC" -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -G -dc -c \
            -o "$out/hostobj/$(basename "${f%.cu}").o" "$f"
    done
    "$NVCC" -arch=sm_90 -G -dlink -o "$out/hostobj/dlink.o" "$out"/hostobj/l3_*.o
    # one unit for sm_90 and sm_90a (arch-specific) in one object, and sm_90a alone
    "$NVCC" -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_90,code=sm_90 -G -dc -c \
        -o "$out/hostobj/variants.o" "$src/link3/l3_a.cu"
    "$NVCC" -arch=sm_90a -G -dc -cubin -o "$out/hostobj/l3_a.sm_90a.rdc.cubin" "$src/link3/l3_a.cu"
    # static libraries: nvcc -lib of host objects (nvlink links every member,
    # in archive order, referenced or not); libcudadevrt.a for a program that
    # needs it (dynamic parallelism) and one that does not
    mkdir -p "$out/archive"
    "$NVCC" -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -G -dc -c \
        -o "$out/archive/unused.o" "$src/other.cu"
    rm -f "$out/archive/libl3.a"
    "$NVCC" -lib -o "$out/archive/libl3.a" "$out/hostobj/l3_c.o" "$out/archive/unused.o" "$out/hostobj/l3_b.o"
    "$NVCC" -arch=sm_90 -G -dc -cubin -o "$out/archive/unused.sm_90.rdc.cubin" "$src/other.cu"
    "$NVLINK" -arch=sm_90 -g -o "$out/archive/lib.link.g.cubin" "$out/hostobj/l3_a.o" "$out/archive/libl3.a"
    devrt=$(dirname "$NVCC")/../lib64
    if [ -f "$devrt/libcudadevrt.a" ]; then
        cp "$devrt/libcudadevrt.a" "$out/archive/"
        "$NVCC" -arch=sm_90 -G -dc -cubin -o "$out/archive/cdp.rdc.cubin" "$src/cdp.cu"
        "$NVLINK" -arch=sm_90 -g -o "$out/archive/cdp.link.g.cubin" "$out/archive/cdp.rdc.cubin" -L"$devrt" -lcudadevrt
        "$NVLINK" -arch=sm_90 -g -o "$out/archive/nocdp.link.g.cubin" "$out/link3/sm_90/G/l3_b.rdc.cubin" \
            -L"$devrt" -lcudadevrt
    fi
}
bg host_and_archives

# PTX stage 1: nvcc -ptx, then ptxas as nvcc runs it (-G: -g with its two
# flags; -lineinfo: --generate-line-info at -O0 and -O3; --compile-only for
# a relocatable object).  templ.cu and onelinerec.cu (vsum, For<>,
# depth<D>) are templates recursing on one line (rules 7, 9, 10 of
# docs/ptx-lines.md).  (sm_90 .debug_line: the committed fixtures,
# devreduce, whose -O3 table needs rule 9, and onelinerec; sm_100/120
# defer the same way)
PTXAS=$(dirname "$NVCC")/ptxas
stage1() { # ARCH PROGRAM
    local arch=$1 n=$2 d="$out/stage1/sm_$1" f="$src/stage1/$2.cu" O
    "$NVCC" -arch=sm_$arch -G -ptx -o "$d/$n.G.ptx" "$f"
    "$PTXAS" -arch=sm_$arch -m64 -g --dont-merge-basicblocks --return-at-end -o "$d/$n.G.O0.cubin" "$d/$n.G.ptx"
    "$NVCC" -arch=sm_$arch -lineinfo -ptx -o "$d/$n.lineinfo.ptx" "$f"
    for O in 0 3; do
        "$PTXAS" -arch=sm_$arch -m64 -O$O --generate-line-info -o "$d/$n.lineinfo.O$O.cubin" "$d/$n.lineinfo.ptx"
    done
    cp "$d/$n.lineinfo.ptx" "$d/$n.lineinfo-rdc.ptx"
    "$PTXAS" -arch=sm_$arch -m64 -O3 --generate-line-info --compile-only -o "$d/$n.lineinfo-rdc.O3.cubin" \
        "$d/$n.lineinfo-rdc.ptx"
}
# nvcc -rdc=true PTX (what nvcc -dc compiles: .visible functions, clones)
stage1dc() { # ARCH PROGRAM
    local arch=$1 n=$2 d="$out/stage1/sm_$1" f="$src/stage1/$2.cu"
    "$NVCC" -arch=sm_$arch -G -rdc=true -ptx -o "$d/$n.G-dc.ptx" "$f"
    "$PTXAS" -arch=sm_$arch -m64 -g --dont-merge-basicblocks --return-at-end --compile-only \
        -o "$d/$n.G-dc.O0.cubin" "$d/$n.G-dc.ptx"
    "$NVCC" -arch=sm_$arch -lineinfo -rdc=true -ptx -o "$d/$n.lineinfo-dc.ptx" "$f"
    "$PTXAS" -arch=sm_$arch -m64 -O3 --generate-line-info --compile-only -o "$d/$n.lineinfo-dc.O3.cubin" \
        "$d/$n.lineinfo-dc.ptx"
}
for arch in 75 100 120; do
    mkdir -p "$out/stage1/sm_$arch"
    for n in heavy multi twocalls chains libdev thrustcub noinl onelinerec placed; do bg stage1 $arch $n; done
done
mkdir -p "$out/stage1/sm_90"
bg stage1 90 devreduce
bg stage1 90 onelinerec
bg stage1 90 templ
bg stage1 90 placed
bg stage1 90 manynoinl
bg stage1 120 manynoinl
bg stage1 90 hdrentry
bg stage1 100 hdrentry
bg stage1 90 hdrcall
bg stage1 120 hdrcall
bg stage1 90 fwdcall
bg stage1 100 fwdcall
bg stage1 90 hdrfile
bg stage1 120 hdrfile
bg stage1 90 xline
bg stage1 100 xline
bg stage1 90 hdrpair
bg stage1 120 hdrpair
bg stage1 90 hashline
bg stage1 120 hashline
bg stage1 90 lerp
bg stage1 100 lerp
for n in hlnmacro hlnrec cellhdr hlnsame hlnclamp rnd3 rnd5 rnd15 rnd13 rnd31 rnd56 rich10; do bg stage1 90 $n; done
for n in hlnsame cellhdr rnd31; do bg stage1 100 $n; done
bg stage1 75 rnd31
bg stage1 120 cgcopy
mkdir -p "$out/stage1/sm_80"
bg stage1 80 softln
bg stage1 80 mathx
bg stage1 90 nsplace
bg stage1 120 nsplace
bg stage1 90 deep
for n in offsetnd binsearch; do bg stage1 90 $n; bg stage1 100 $n; bg stage1 120 $n; done
for n in warpsum taylor; do bg stage1 80 $n; bg stage1 100 $n; done
bg stage1 90 findbins
bg stage1 120 fiblist
bg stage1 90 twohdr
bg stage1 90 dotsum; bg stage1 120 dotsum
bg stage1 90 matvec; bg stage1 100 matvec
bg stage1 100 kmdist; bg stage1 120 kmdist
bg stage1 90 chainbase; bg stage1 120 chainbase
bg stage1 90 walkloop; bg stage1 120 walkloop
bg stage1dc 120 fibrec
bg stage1 120 rnd56
for n in fibrec foldrec; do bg stage1 90 $n; bg stage1 100 $n; done
for n in heavy twocalls noinl placed hdrcall hlnsame cgcopy rdcend; do bg stage1dc 90 $n; bg stage1dc 120 $n; done
sync_jobs
touch "$stamp"
