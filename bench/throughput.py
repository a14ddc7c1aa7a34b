#!/usr/bin/env python3
"""The throughput goals, each a ratio measured in one run.

  bench/throughput.py [--runs N] [LIBRARY]

LIBRARY (default /usr/local/cuda/lib64/libcublasLt.so.13, NVIDIA's
largest):
  cat LIBRARY                     reading the file (to /dev/null)
  cudwarf list LIBRARY            the default (decodes up to 256 MiB): ratio to cat
  cudwarf list --headers LIBRARY  decodes nothing: ratio to cat
  cudwarf list --decode LIBRARY   decodes every image (debug sections)
  cudwarf verify -j 1 / -j 2      speed-up of two threads, outputs compared
and, when bench/out/cub_big_sm90_lineinfo.cubin exists (bench/run.py
builds it), cudwarf lines --json (every row whole: both tables), of
.debug_line alone (the table llvm-dwarfdump prints) and --json --compact
against llvm-dwarfdump --debug-line of its relocated copy.

Each command runs N times (default 7), interleaved; the medians are shown.
Output goes to /dev/null.  The file is read once first, so every command
finds it in the page cache.
"""
import os, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CW = os.path.join(ROOT, "build", "cudwarf")


def once(cmd):
    with open(os.devnull, "wb") as null:
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=null, stderr=subprocess.DEVNULL, check=False)
        return time.perf_counter() - t0


def medians(cases, runs):
    times = {name: [] for name, _ in cases}
    for _ in range(runs):
        for name, cmd in cases:
            times[name].append(once(cmd))
    return {name: statistics.median(t) for name, t in times.items()}


def main():
    args = sys.argv[1:]
    runs = 7
    if "--runs" in args:
        runs = int(args[args.index("--runs") + 1])
        del args[args.index("--runs"):args.index("--runs") + 2]
    lib = args[0] if args else "/usr/local/cuda/lib64/libcublasLt.so.13"
    print("| work | time (median of %d) | ratio | goal |" % runs)
    print("|---|---|---|---|")
    if os.path.exists(lib):
        once(["cat", lib])
        v1 = subprocess.run([CW, "verify", "-j", "1", lib], capture_output=True)
        v2 = subprocess.run([CW, "verify", "-j", "2", lib], capture_output=True)
        same = v1.stdout == v2.stdout and v1.returncode == v2.returncode
        m = medians([("cat", ["cat", lib]), ("list", [CW, "list", lib]), ("headers", [CW, "list", "--headers", lib]),
                     ("decode", [CW, "list", "--decode", lib]),
                     ("v1", [CW, "verify", "-j", "1", lib]), ("v2", [CW, "verify", "-j", "2", lib])], runs)
        b = os.path.basename(lib)
        print(f"| `cat {b}` | {m['cat']:.3f} s | | |")
        print(f"| `list {b}` | {m['list']:.3f} s | {m['list'] / m['cat']:.2f}x cat | <= 2x cat |")
        print(f"| `list --headers {b}` | {m['headers']:.3f} s | {m['headers'] / m['cat']:.2f}x cat | |")
        print(f"| `list --decode {b}` (decodes every image) | {m['decode']:.3f} s | {m['decode'] / m['cat']:.1f}x cat | |")
        print(f"| `verify -j 2` vs `-j 1`, {b} | {m['v2']:.3f} s vs {m['v1']:.3f} s | "
              f"{m['v1'] / m['v2']:.2f}x{'' if same else ' (OUTPUTS DIFFER)'} | >= 1.6x |")
    else:
        print(f"| {lib} | not installed | | |")
    cub = os.path.join(ROOT, "bench", "out", "cub_big_sm90_lineinfo.cubin")
    if os.path.exists(cub) and shutil.which("llvm-dwarfdump"):
        tmp = tempfile.mkdtemp()
        rel = os.path.join(tmp, "rel.cubin")
        prep = os.path.join(ROOT, "build", "tests", "cubin_prep")
        if not os.path.exists(prep):
            subprocess.run(["make", "-s", "-C", ROOT, "build/tests/cubin_prep"], check=True)
        subprocess.run([prep, "-r", "-e", "-x", cub, rel], check=True)
        m = medians([("json", [CW, "lines", "--json", cub]), ("compact", [CW, "lines", "--json", "--compact", cub]),
                     ("same", [CW, "lines", "--json", "--section", ".debug_line", cub]),
                     ("dd", ["llvm-dwarfdump", "--debug-line", rel])], runs)
        mb = os.path.getsize(cub) / 1e6
        print(f"| `llvm-dwarfdump --debug-line`, {mb:.1f} MB CUB -lineinfo cubin | {m['dd']:.3f} s | | |")
        print(f"| `lines --json` (every row whole; .debug_line and .nv_debug_line_sass) | {m['json']:.3f} s | "
              f"{m['dd'] / m['json']:.2f}x faster | >= 3x |")
        print(f"| `lines --json --section .debug_line` (the rows llvm-dwarfdump prints) | {m['same']:.3f} s | "
              f"{m['dd'] / m['same']:.2f}x faster | |")
        print(f"| `lines --json --compact` | {m['compact']:.3f} s | {m['dd'] / m['compact']:.2f}x faster | |")
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
