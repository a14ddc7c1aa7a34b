#!/usr/bin/env python3
"""Two builds of cudwarf against each other: is a change slower?

  bench/ab.py OLD_CUDWARF NEW_CUDWARF [--runs N]

Times the commands whose speed the benchmarks of bench/run.py report, on
the same inputs (bench/out/, built by bench/run.py), plus verify and the
symbolizer's batch (addr2line on bench/out/locs-*.txt when present) and
`list`/`size` of the largest NVIDIA library found.  Each command runs N
times (default 7), OLD and NEW alternating, so a slow moment of the
machine hits both; the table shows both medians and NEW/OLD.  Output goes
to /dev/null.
"""
import os, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    runs = 7
    for a in sys.argv[1:]:
        if a.startswith("--runs="):
            runs = int(a.split("=", 1)[1])
    if len(args) != 2:
        sys.exit(__doc__)
    old, new = args
    g, li = os.path.join(OUT, "cub_big_sm90_G.cubin"), os.path.join(OUT, "cub_big_sm90_lineinfo.cubin")
    cases = []
    if os.path.exists(li):
        cases += [("lines (-lineinfo)", ["lines", li], None), ("lines --json (-lineinfo)", ["lines", "--json", li], None)]
        locs = os.path.join(OUT, "locs-lineinfo.txt")
        if os.path.exists(locs):
            cases.append(("addr2line -f -i, 200k PCs (-lineinfo)", ["addr2line", "-e", li, "-f", "-i"], locs))
    if os.path.exists(g):
        cases += [("dump --info (-G)", ["dump", "--info", g], None),
                  ("dump --info --json (-G)", ["dump", "--info", "--json", g], None),
                  ("dump --frames (-G)", ["dump", "--frames", g], None),
                  ("dump --line (-G)", ["dump", "--line", g], None),
                  ("verify (-G)", ["verify", g], None)]
    libs = [os.path.join("/usr/local/cuda/lib64", n) for n in ("libcublasLt.so", "libcusparse.so")]
    lib = next((p for p in libs if os.path.exists(p)), None)
    if lib:
        cases += [(f"list {os.path.basename(lib)}", ["list", lib], None),
                  (f"verify -j2 {os.path.basename(lib)}", ["verify", "-j", "2", lib], None)]
    if not cases:
        sys.exit("bench/ab.py: no inputs: run bench/run.py first (it builds bench/out/)")
    print(f"{'command':44} {'old (s)':>9} {'new (s)':>9} {'new/old':>8}")
    for name, argv, stdin in cases:
        t = {old: [], new: []}
        for _ in range(runs):
            for b in (old, new):
                with open(stdin or os.devnull, "rb") as inp:
                    s = time.perf_counter()
                    subprocess.run([b, *argv], stdin=inp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    t[b].append(time.perf_counter() - s)
        mo, mn = statistics.median(t[old]), statistics.median(t[new])
        print(f"{name:44} {mo:9.3f} {mn:9.3f} {mn / mo:8.2f}", flush=True)


if __name__ == "__main__":
    main()
