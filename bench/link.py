#!/usr/bin/env python3
"""Link benchmark: `cudwarf link` against `nvlink -g` on the same inputs.

  bench/link.py [--arch sm_90] [OBJ.cubin...]

Without objects, builds the largest link this machine makes in a few
minutes: the two CUB units (bench/src/cub_big.cu, cub_big2.cu) and the ten
link10 units (tests/src/link10), nvcc -G -dc.  nvlink does the whole device
link (code and debug); cudwarf only the debug half, so the ratio says how
much of a link's time a separate debug merge costs; the last row writes to
/dev/null, the merge without the cost of putting 50+ MB in a file.  Best wall time of 3
runs each, peak RSS from GNU time (/usr/bin/time), and the inputs' total
size to compare peak memory with.  Also checks that cudwarf's output
verifies clean and that its .nv.merc./.debug_* sections have the sizes of
nvlink's.
"""
import glob, os, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")
RUNS = 3


def measure(cmd):
    """best wall time of RUNS runs, each writing a fresh output (the -o file removed first), and peak RSS"""
    out = cmd[cmd.index("-o") + 1]
    if out == "-":
        out = "/nonexistent/-"
    best = None
    for _ in range(RUNS):
        if os.path.exists(out):
            os.unlink(out)
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # -o -: to /dev/null
        best = min(best or 1e9, time.perf_counter() - t0)
    if os.path.exists(out):
        os.unlink(out)
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, check=True)
    return best, int(p.stderr.strip().splitlines()[-1]) / 1024.0


def build(arch):
    d = os.path.join(OUT, f"link_{arch}")
    os.makedirs(d, exist_ok=True)
    srcs = [os.path.join(ROOT, "bench", "src", "cub_big.cu"), os.path.join(ROOT, "bench", "src", "cub_big2.cu")]
    srcs += sorted(glob.glob(os.path.join(ROOT, "tests", "src", "link10", "*.cu")))
    objs = []
    for s in srcs:
        o = os.path.join(d, os.path.basename(s)[:-3] + ".rdc.cubin")
        if not os.path.exists(o):
            print(f"building {o}", flush=True)
            subprocess.run(["nvcc", f"-arch={arch}", "-G", "-dc", "-cubin", "-o", o, s], check=True)
        objs.append(o)
    return objs


def main():
    args = sys.argv[1:]
    arch = "sm_90"
    if args[:1] == ["--arch"]:
        arch, args = args[1], args[2:]
    objs = args or build(arch)
    subprocess.run(["make", "-s", "-C", ROOT, "all"], check=True)
    cudwarf = os.path.join(ROOT, "build", "cudwarf")
    nv_out, our_out = os.path.join(OUT, "nvlink-g.cubin"), os.path.join(OUT, "cudwarf-link.cubin")
    size = sum(os.path.getsize(o) for o in objs) / 1e6
    tn, rn = measure(["nvlink", f"-arch={arch}", "-g", "-o", nv_out, *objs])
    tc, rc = measure([cudwarf, "link", "--symbols", nv_out, "-o", our_out, *objs])
    tp, rp = measure([cudwarf, "link", "-o", our_out + ".plain", *objs])
    tm, rm = measure([cudwarf, "link", "-o", "-", *objs])  # the merge without the file system: to /dev/null
    v = subprocess.run([cudwarf, "verify", our_out], capture_output=True, text=True)
    print(f"\n{len(objs)} objects, {size:.1f} MB ({arch}, -G); outputs: nvlink {os.path.getsize(nv_out) / 1e6:.1f} MB, "
          f"cudwarf {os.path.getsize(our_out) / 1e6:.1f} MB (debug sections only)")
    print(f"{'command':40} {'best of ' + str(RUNS):>11} {'peak RSS':>10} {'time / nvlink':>14} {'RSS / inputs':>13}")
    for name, t, r in (("nvlink -g (code and debug)", tn, rn), ("cudwarf link --symbols nvlink-out", tc, rc),
                       ("cudwarf link", tp, rp), ("cudwarf link -o - >/dev/null (merge only)", tm, rm)):
        print(f"{name:40} {t * 1000:8.0f} ms {r:7.1f} MB {t / tn:13.1%} {r / size:12.2f}x")
    print(f"cudwarf verify on cudwarf's output: {v.stdout.strip().splitlines()[-1]}")


if __name__ == "__main__":
    main()
