#!/usr/bin/env python3
"""Benchmarks: cudwarf against the reference readers, measured in one run.

  bench/run.py [CUBIN]

Needs GNU time (/usr/bin/time, Debian package "time") for peak memory.
Without CUBIN, builds bench/out/cub_big_sm90_G.cubin from bench/src/cub_big.cu
(CUB device algorithms, -G, sm_90; about a minute).  For each tool: the best
wall time of 5 runs and its peak RSS, output sent to /dev/null.  The
reference readers read a relocated copy (tests/oracles/cubin_prep -r -e -x),
which is what they need to print right values; cudwarf reads the original and
relocates itself.  Prints a table with the ratio of each tool's time to
cudwarf's, and checks that every tool saw the same number of DIEs.
"""
import os, re, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")
RUNS = 5


def sh(*a, **k):
    return subprocess.run(a, check=True, **k)


def measure(cmd):
    """Best wall time of RUNS runs; peak RSS (MB) from GNU time's %M."""
    best = None
    for _ in range(RUNS):
        with open(os.devnull, "wb") as null:
            t0 = time.perf_counter()
            subprocess.run(cmd, stdout=null, stderr=subprocess.DEVNULL)
            dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    rss = float("nan")
    if os.path.exists("/usr/bin/time"):
        p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        rss = int(p.stderr.strip().splitlines()[-1]) / 1024.0
    return best, rss


def count(cmd, pattern):
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    return len(re.findall(pattern, out, re.M))


def build(name, flag):
    cubin = os.path.join(OUT, name)
    if not os.path.exists(cubin):
        print(f"building {cubin} (nvcc {flag}, CUB; about a minute)")
        sh("nvcc", "-arch=sm_90", flag, "-dc", "-cubin", "-o", cubin, os.path.join(ROOT, "bench", "src", "cub_big.cu"))
    return cubin


def table(res):
    base = res[0][1]
    print(f"\n{'command':52} {'best of ' + str(RUNS):>11} {'peak RSS':>10} {'rows/DIEs':>10} {'time / cudwarf':>15}")
    for name, t, rss, n in res:
        print(f"{name:52} {t * 1000:9.1f} ms {rss:7.1f} MB {n:10d} {t / base:14.2f}x")


def bench_lines(cudwarf, prep, cubin):
    rel = os.path.join(OUT, "relocated-lines.cubin")
    sh(prep, "-r", "-e", "-x", cubin, rel, stderr=subprocess.DEVNULL)
    row = r"^  0x[0-9a-f]+  "
    rows_lib = os.path.join(ROOT, "build", "bench", "line_rows")
    lib_rows = int(subprocess.run([rows_lib, cubin, "1"], capture_output=True, text=True).stdout.split()[0])
    cases = [
        ("cudwarf lines (.debug_line + .nv_debug_line_sass)", [cudwarf, "lines", cubin], row),
        ("libcudwarf rows, no output (bench/line_rows.c)", [rows_lib, cubin, "1"], lib_rows),
        ("cudwarf lines --section .debug_line", [cudwarf, "lines", "--section", ".debug_line", cubin], row),
        ("cudwarf lines --json (both)", [cudwarf, "lines", "--json", cubin], None),
        ("llvm-dwarfdump --debug-line (.debug_line)", ["llvm-dwarfdump", "--debug-line", rel], r"^0x[0-9a-f]{16}\s"),
        ("eu-readelf --debug-dump=decodedline (.debug_line)", ["eu-readelf", "--debug-dump=decodedline", rel],
         r"^\s+\d+:\d+\s"),
    ]
    res = []
    for name, cmd, pat in cases:
        t, rss = measure(cmd)
        n = pat if isinstance(pat, int) else count(cmd, pat) if pat else res[0][3]
        res.append((name, t, rss, n))
    print(f"\nline tables: {cubin} ({os.path.getsize(cubin) / 1e6:.1f} MB)")
    table(res)
    ours_rate = res[0][3] / res[0][1]
    for name, t, _, n in res[4:]:
        if n:
            print(f"rows per second, cudwarf (both sections) / {name.split()[0]}: {ours_rate / (n / t):.2f}x; "
                  f"time, {name.split()[0]} / libcudwarf (all rows, both sections): {t / res[1][1]:.2f}x")


def main():
    os.makedirs(OUT, exist_ok=True)
    sh("make", "-s", "-C", ROOT, "all", "build/tests/cubin_prep", "build/bench/line_rows")
    cudwarf = os.path.join(ROOT, "build", "cudwarf")
    prep = os.path.join(ROOT, "build", "tests", "cubin_prep")
    cubin = sys.argv[1] if len(sys.argv) > 1 else build("cub_big_sm90_G.cubin", "-G")
    rel = os.path.join(OUT, "relocated.cubin")
    sh(prep, "-r", "-e", "-x", cubin, rel, stderr=subprocess.DEVNULL)
    info = subprocess.run(["readelf", "-SW", cubin], capture_output=True, text=True).stdout
    m = re.search(r"\.debug_info\s+PROGBITS\s+\S+\s+\S+\s+(\S+)", info)
    size_info = int(m.group(1), 16) if m else 0
    print(f"input: {cubin} ({os.path.getsize(cubin) / 1e6:.1f} MB, .debug_info {size_info / 1e6:.2f} MB)")

    dies = {
        "cudwarf": count([cudwarf, "dump", "--info", cubin], r"^ <\d+><[0-9a-f]+>: Abbrev"),
        "llvm-dwarfdump": count(["llvm-dwarfdump", "--debug-info", rel], r"^0x[0-9a-f]+:\s+DW_TAG"),
        "eu-readelf": count(["eu-readelf", "--debug-dump=info", rel], r"^ \[\s*[0-9a-f]+\]\s+\w"),
        "readelf": count(["readelf", "--debug-dump=info", rel], r"^ <\d+><[0-9a-f]+>: Abbrev Number: [1-9]"),
    }
    cases = [
        ("cudwarf dump --info", [cudwarf, "dump", "--info", cubin], "cudwarf"),
        ("cudwarf dump --info --json", [cudwarf, "dump", "--info", "--json", cubin], "cudwarf"),
        ("llvm-dwarfdump --debug-info", ["llvm-dwarfdump", "--debug-info", rel], "llvm-dwarfdump"),
        ("eu-readelf --debug-dump=info", ["eu-readelf", "--debug-dump=info", rel], "eu-readelf"),
        ("readelf --debug-dump=info", ["readelf", "--debug-dump=info", rel], "readelf"),
    ]
    res = []
    for name, cmd, tool in cases:
        t, rss = measure(cmd)
        res.append((name, t, rss, dies[tool]))
    print("\n.debug_info:")
    table(res)
    refs = [t for name, t, _, _ in res[2:]]
    print(f"fastest reference reader / cudwarf dump --info: {min(refs) / res[0][1]:.2f}x")
    if len(set(dies.values())) != 1:
        print(f"note: DIE counts differ: {dies}")
    if len(sys.argv) <= 1:
        bench_lines(cudwarf, prep, cubin)
        bench_lines(cudwarf, prep, build("cub_big_sm90_lineinfo.cubin", "-lineinfo"))


if __name__ == "__main__":
    main()
