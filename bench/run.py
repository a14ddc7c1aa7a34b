#!/usr/bin/env python3
"""Benchmarks: cudwarf against the reference readers, measured in one run.

  bench/run.py [--runs N]

Builds bench/out/cub_big_sm90_G.cubin and cub_big_sm90_lineinfo.cubin from
bench/src/cub_big.cu (CUB device algorithms, nvcc -arch=sm_90 -dc, -G and
-lineinfo; about a minute each, once) and times, output to /dev/null:

  line tables  cudwarf lines, --long, --json, --json --compact  llvm-dwarfdump --debug-line,
               eu-readelf --debug-dump=decodedline, readelf --debug-dump=decodedline
  DIEs         cudwarf dump --info, --info --json          llvm-dwarfdump --debug-info,
               eu-readelf --debug-dump=info, readelf --debug-dump=info
  frames       cudwarf dump --frames, --frames --json      llvm-dwarfdump --debug-frame,
               eu-readelf --debug-dump=frames
  correlate    cudwarf correlate (text, --json, --html) of the -lineinfo cubin with its PTX,
               beside llvm-dwarfdump --debug-line of it

Each command runs N times (default 9), interleaved with the others so that
a slow moment of the machine hits them all; the table shows the median and
the fastest run, the bytes of output, peak RSS (GNU time, Debian package
"time") and llvm-dwarfdump's median over this command's.  The reference
readers read a relocated copy (tests/oracles/cubin_prep -r -e -x), which
they need to print right values; cudwarf reads the original and relocates
itself.  Then the LEB128 decoders (bench/leb128.c, docs/leb128.md).
"""
import os, re, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")


def sh(*a, **k):
    return subprocess.run(a, check=True, **k)


def build(name, flag):
    cubin = os.path.join(OUT, name)
    if not os.path.exists(cubin):
        print(f"building {cubin} (nvcc {flag}, CUB; about a minute)", flush=True)
        sh("nvcc", "-arch=sm_90", flag, "-dc", "-cubin", "-o", cubin, os.path.join(ROOT, "bench", "src", "cub_big.cu"))
    return cubin


def once(cmd):
    with open(os.devnull, "wb") as null:
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=null, stderr=subprocess.DEVNULL)
        return time.perf_counter() - t0


def output_bytes(cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    n = 0
    while True:
        b = p.stdout.read(1 << 20)
        if not b:
            break
        n += len(b)
    p.wait()
    return n


def peak_rss(cmd):
    if not os.path.exists("/usr/bin/time"):
        return float("nan")
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    return int(p.stderr.strip().splitlines()[-1]) / 1024.0


def group(title, cases, runs, ref_name):
    """cases: [(name, cmd)]; times interleaved, runs each."""
    times = {name: [] for name, _ in cases}
    for _ in range(runs):
        for name, cmd in cases:
            times[name].append(once(cmd))
    med = {n: statistics.median(t) for n, t in times.items()}
    ref = med.get(ref_name)
    print(f"\n{title}")
    print(f"| command | median of {runs} | fastest | output | peak RSS | {ref_name.split()[0]} / this |")
    print("|---|---|---|---|---|---|")
    for name, cmd in cases:
        ratio = f"{ref / med[name]:.2f}x" if ref else "-"
        print(f"| `{name}` | {med[name] * 1000:.1f} ms | {min(times[name]) * 1000:.1f} ms | "
              f"{output_bytes(cmd) / 1e6:.1f} MB | {peak_rss(cmd):.1f} MB | {ratio} |", flush=True)
    return med


def count(cmd, pattern):
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    return len(re.findall(pattern, out, re.M))


def main():
    runs = 9
    if "--runs" in sys.argv:
        runs = int(sys.argv[sys.argv.index("--runs") + 1])
    os.makedirs(OUT, exist_ok=True)
    sh("make", "-s", "-C", ROOT, "all", "build/tests/cubin_prep", "build/bench/line_rows", "build/bench/leb128",
       "build/bench/ptx_read")
    cw = os.path.join(ROOT, "build", "cudwarf")
    prep = os.path.join(ROOT, "build", "tests", "cubin_prep")
    g = build("cub_big_sm90_G.cubin", "-G")
    li = build("cub_big_sm90_lineinfo.cubin", "-lineinfo")
    rel = {}
    for c in (g, li):
        rel[c] = c[:-len(".cubin")] + ".relocated.cubin"
        sh(prep, "-r", "-e", "-x", c, rel[c], stderr=subprocess.DEVNULL)
    for c in (li, g):
        rows = subprocess.run([os.path.join(ROOT, "build", "bench", "line_rows"), c, "5"], capture_output=True,
                              text=True).stdout.strip()
        print(f"\nline tables of {os.path.basename(c)} ({os.path.getsize(c) / 1e6:.1f} MB): "
              f"libcudwarf alone (bench/line_rows.c, both sections, no output): {rows}")
        r = rel[c]
        group(f"line tables, {os.path.basename(c)} (cudwarf: .debug_line and .nv_debug_line_sass; "
              f"the others: .debug_line)", [
                  ("cudwarf lines", [cw, "lines", c]),
                  ("cudwarf lines --long", [cw, "lines", "--long", c]),
                  ("cudwarf lines --json", [cw, "lines", "--json", c]),
                  ("cudwarf lines --json --compact", [cw, "lines", "--json", "--compact", c]),
                  ("cudwarf lines --section .debug_line", [cw, "lines", "--section", ".debug_line", c]),
                  ("llvm-dwarfdump --debug-line", ["llvm-dwarfdump", "--debug-line", r]),
                  ("eu-readelf --debug-dump=decodedline", ["eu-readelf", "--debug-dump=decodedline", r]),
                  ("readelf --debug-dump=decodedline", ["readelf", "--debug-dump=decodedline", r]),
              ], runs, "llvm-dwarfdump --debug-line")
    # PTX stage 1: the .loc table of the CUB program's -lineinfo PTX
    ptx = os.path.join(OUT, "cub_big_sm90_lineinfo.ptx")
    if not os.path.exists(ptx):
        sh("nvcc", "-arch=sm_90", "-lineinfo", "-rdc=true", "-ptx", "-o", ptx,
           os.path.join(ROOT, "bench", "src", "cub_big.cu"))
    rd = subprocess.run([os.path.join(ROOT, "build", "bench", "ptx_read"), ptx, "5"], capture_output=True,
                        text=True).stdout.strip()
    print(f"\nPTX .loc table (bench/ptx_read.c: directives, inline chains, every instruction line; goal "
          f">= 200 MB/s): {rd}")
    group(f"PTX lines of {os.path.basename(ptx)} ({os.path.getsize(ptx) / 1e6:.1f} MB)", [
        ("cudwarf ptx-lines --json", [cw, "ptx-lines", "--json", ptx]),
        ("ptxas -O0 --generate-line-info (whole compile)", ["ptxas", "-arch=sm_90", "-O0", "--generate-line-info",
                                                             "--compile-only", "-o", os.devnull, ptx]),
    ], runs, "ptxas -O0 --generate-line-info (whole compile)")
    # correlate: every instruction of the -lineinfo cubin with its PTX line and chain
    group(f"correlate of {os.path.basename(li)} with its PTX", [
        ("cudwarf correlate (text, top 20 lines)", [cw, "correlate", "--ptx", ptx, li]),
        ("cudwarf correlate --json", [cw, "correlate", "--json", "--ptx", ptx, li]),
        ("cudwarf correlate --html", [cw, "correlate", "--html", "--ptx", ptx, li]),
        ("llvm-dwarfdump --debug-line", ["llvm-dwarfdump", "--debug-line", rel[li]]),
    ], runs, "llvm-dwarfdump --debug-line")
    r = rel[g]
    dies = {
        "cudwarf": count([cw, "dump", "--info", g], r"^ <\d+><[0-9a-f]+>: Abbrev"),
        "llvm-dwarfdump": count(["llvm-dwarfdump", "--debug-info", r], r"^0x[0-9a-f]+:\s+DW_TAG"),
        "eu-readelf": count(["eu-readelf", "--debug-dump=info", r], r"^ \[\s*[0-9a-f]+\]\s+\w"),
        "readelf": count(["readelf", "--debug-dump=info", r], r"^ <\d+><[0-9a-f]+>: Abbrev Number: [1-9]"),
    }
    group(f"DIEs, {os.path.basename(g)} ({os.path.getsize(g) / 1e6:.1f} MB, {dies['cudwarf']} DIEs)", [
        ("cudwarf dump --info", [cw, "dump", "--info", g]),
        ("cudwarf dump --info --json", [cw, "dump", "--info", "--json", g]),
        ("llvm-dwarfdump --debug-info", ["llvm-dwarfdump", "--debug-info", r]),
        ("eu-readelf --debug-dump=info", ["eu-readelf", "--debug-dump=info", r]),
        ("readelf --debug-dump=info", ["readelf", "--debug-dump=info", r]),
    ], runs, "llvm-dwarfdump --debug-info")
    if len(set(dies.values())) != 1:
        print(f"note: the readers count different DIEs: {dies}")
    # Frames: the references read the original, whose CIE pointers hold 0
    # until relocated (llvm-dwarfdump then shows every FDE with CIE 0, but
    # decodes them all; on the relocated copy it stops at the first FDE).
    # GNU readelf stops at the first CFA register (NVIDIA's are past its
    # limit): not the same work, left out.
    group(f"call frames, {os.path.basename(g)} (the references on the original)", [
        ("cudwarf dump --frames", [cw, "dump", "--frames", g]),
        ("cudwarf dump --frames --json", [cw, "dump", "--frames", "--json", g]),
        ("llvm-dwarfdump --debug-frame", ["llvm-dwarfdump", "--debug-frame", g]),
        ("eu-readelf --debug-dump=frames", ["eu-readelf", "--debug-dump=frames", g]),
    ], runs, "llvm-dwarfdump --debug-frame")
    print("\nLEB128 decoders on each cubin's LEB128 values, back to back (docs/leb128.md):")
    for c in (g, li):
        sh(os.path.join(ROOT, "build", "bench", "leb128"), c, "50")


if __name__ == "__main__":
    main()
