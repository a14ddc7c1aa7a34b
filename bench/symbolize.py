#!/usr/bin/env python3
"""Symbolization throughput: PCs per second, cold and warm, against
llvm-symbolizer as a reference point.

  bench/symbolize.py [N]

Builds (or reuses) bench/out/cub_big_sm90_lineinfo.cubin and
cub_big_sm90_G.cubin (bench/src/cub_big.cu, as bench/run.py does), takes N
locations (default 200,000) drawn at random from each cubin's .debug_line
rows, and measures, best of 3:
  - `cudwarf addr2line -f -i` with the N locations on standard input
    (from a file and through a pipe), output to /dev/null, against the time
    `cudwarf lines` takes to print the whole file;
  - the library alone (bench/symbolize.c): the cold index build and
    1,000,000 warm lookups on one and two threads;
  - llvm-symbolizer --inlining on a host binary with a line table of
    similar size (build/cudwarf, built with -g), N addresses drawn from its
    rows: what a profiler pays per PC on the CPU side today.
"""
import os, random, re, subprocess, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "common"))
import lines_json  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")
CUDWARF = os.path.join(ROOT, "build", "cudwarf")
N = int(sys.argv[1]) if len(sys.argv) > 1 else 200000


def build(flag):
    cubin = os.path.join(OUT, f"cub_big_sm90_{flag.strip('-')}.cubin")
    if not os.path.exists(cubin):
        os.makedirs(OUT, exist_ok=True)
        print(f"building {cubin} (nvcc {flag}, CUB; about a minute)", flush=True)
        subprocess.run(["nvcc", "-arch=sm_90", flag, "-dc", "-cubin", "-o", cubin,
                        os.path.join(ROOT, "bench", "src", "cub_big.cu")], check=True)
    return cubin


def best(cmd, stdin_path=None, pipe=False, runs=3):
    t = None
    for _ in range(runs):
        with open(os.devnull, "wb") as null:
            t0 = time.perf_counter()
            if stdin_path and pipe:
                cat = subprocess.Popen(["cat", stdin_path], stdout=subprocess.PIPE)
                subprocess.run(cmd, stdin=cat.stdout, stdout=null, stderr=subprocess.DEVNULL)
                cat.wait()
            elif stdin_path:
                with open(stdin_path, "rb") as f:
                    subprocess.run(cmd, stdin=f, stdout=null, stderr=subprocess.DEVNULL)
            else:
                subprocess.run(cmd, stdout=null, stderr=subprocess.DEVNULL)
            dt = time.perf_counter() - t0
        t = dt if t is None else min(t, dt)
    return t


def locations(cubin, path):
    import json
    doc = json.loads(subprocess.run([CUDWARF, "lines", "--json", "--section", ".debug_line", cubin],
                                    capture_output=True, text=True, check=True).stdout)
    rows = [f"{r['symbol']}+0x{r['offset']:x}" for s in doc["sections"] for t in s["tables"] for r in lines_json.rows(t)
            if r["symbol"] and not r["end_sequence"]]
    rnd = random.Random(1)
    with open(path, "w") as f:
        f.write("\n".join(rnd.choice(rows) for _ in range(N)) + "\n")
    return len(rows)


def main():
    subprocess.run(["make", "-s", "-C", ROOT, "all", "build/bench/symbolize"], check=True)
    print(f"{'input':34} {'what':52} {'time':>10} {'PCs/s':>12} {'vs lines':>9}")
    for flag in ("-lineinfo", "-G"):
        cubin = build(flag)
        locs = os.path.join(OUT, f"locs{flag}.txt")
        nrows = locations(cubin, locs)
        name = f"CUB {flag} ({os.path.getsize(cubin) >> 20} MB, {nrows} rows)"
        lines = best([CUDWARF, "lines", cubin], runs=5)
        a_file = best([CUDWARF, "addr2line", "-f", "-i", "-e", cubin], locs)
        a_pipe = best([CUDWARF, "addr2line", "-f", "-i", "-e", cubin], locs, pipe=True)
        print(f"{name:34} {'cudwarf lines (the whole file)':52} {lines * 1e3:7.1f} ms {'':>12} {1:8.1f}x")
        print(f"{'':34} {f'cudwarf addr2line -f -i, {N} PCs from a file':52} {a_file * 1e3:7.1f} ms "
              f"{N / a_file:12,.0f} {a_file / lines:8.1f}x")
        print(f"{'':34} {f'... through a pipe':52} {a_pipe * 1e3:7.1f} ms {N / a_pipe:12,.0f} {a_pipe / lines:8.1f}x")
        lib = subprocess.run([os.path.join(ROOT, "build", "bench", "symbolize"), cubin, locs],
                             capture_output=True, text=True, check=True).stdout
        v = dict(line.split(None, 1) for line in lib.splitlines())
        print(f"{'':34} {'library: cold index build (open, every row, DIEs)':52} {float(v['cold_ms']):7.1f} ms")
        print(f"{'':34} {'library: warm lookups, 1 thread':52} {'':>10} {float(v['warm_1_thread_per_s']):12,.0f}")
        print(f"{'':34} {'library: warm lookups, 2 threads, one symbolizer':52} {'':>10} "
              f"{float(v['warm_2_threads_per_s']):12,.0f}")
    host = os.path.join(ROOT, "build", "cudwarf")
    dump = subprocess.run(["llvm-dwarfdump", "--debug-line", host], capture_output=True, text=True).stdout
    addrs = sorted({m.group(1) for m in re.finditer(r"^(0x[0-9a-f]{16})\s+\d+", dump, re.M)})
    rnd = random.Random(1)
    hl = os.path.join(OUT, "locs-host.txt")
    with open(hl, "w") as f:
        f.write("\n".join(rnd.choice(addrs) for _ in range(N)) + "\n")
    t = best(["llvm-symbolizer", "--inlining", "--obj=" + host], hl)
    print(f"{f'host build/cudwarf ({len(addrs)} addresses)':34} {f'llvm-symbolizer --inlining, {N} PCs from a file':52} "
          f"{t * 1e3:7.1f} ms {N / t:12,.0f}")


if __name__ == "__main__":
    main()
