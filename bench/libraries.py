#!/usr/bin/env python3
"""cudwarf over the binaries users have: every library of the CUDA toolkit.

  bench/libraries.py [DIR] [--jobs N]

For each shared library and static archive in DIR (/usr/local/cuda/lib64)
with device code: the containers and images `cudwarf list` finds, the bytes
the images take decompressed, and the wall time and peak RSS (GNU time) of
`cudwarf list` and `cudwarf verify` with -j 1 and -j N (default: the cores
here), and of `cudwarf correlate --top 1` (every image in turn, each let
go after it: memory is one image's), output to /dev/null.  Prints a
Markdown table.
"""
import glob, json, os, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CUDWARF = os.path.join(ROOT, "build", "cudwarf")
args = [a for a in sys.argv[1:]]
jobs = os.cpu_count() or 1
if "--jobs" in args:
    jobs = int(args[args.index("--jobs") + 1])
    del args[args.index("--jobs"):args.index("--jobs") + 2]
DIR = args[0] if args else "/usr/local/cuda/lib64"


def timed(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    dt = time.perf_counter() - t0
    return dt, int(p.stderr.strip().splitlines()[-1]) / 1024.0, p.returncode


def main():
    files = sorted(p for p in glob.glob(os.path.join(DIR, "*")) if os.path.isfile(p) and not os.path.islink(p)
                   and (".so" in p or p.endswith(".a")))
    print(f"| library | MB | containers | ELF / PTX / LTO IR images | decompressed MB | list -j1 | list -j{jobs} | "
          f"verify -j1 | verify -j{jobs} | speed-up (verify) | correlate |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for p in files:
        r = subprocess.run([CUDWARF, "list", "--json", p], capture_output=True, text=True)
        if r.returncode != 0:
            continue
        doc, = json.loads(r.stdout)
        ims = doc["images"]
        if not ims:
            continue
        kinds = [sum(i.get("kind") == k for i in ims) for k in ("elf", "ptx", "nvvm")]
        dec = sum((i.get("decompressed_size") or i.get("payload_size") or 0) if i.get("compression") != "none"
                  else i.get("payload_size") or 0 for i in ims) / 1e6
        row = []
        for cmd in ("list", "verify"):
            for j in (1, jobs):
                t, rss, rc = timed([CUDWARF, cmd, "-j", str(j), p])
                row.append((t, rss, rc))
        row.append(timed([CUDWARF, "correlate", "--top", "1", p]))
        cell = lambda x: f"{x[0]:.2f} s, {x[1]:.0f} MB" + ("" if x[2] == 0 else f" (exit {x[2]})")
        print(f"| {os.path.basename(p)} | {os.path.getsize(p) / 1e6:.0f} | {len(doc['containers'])} | "
              f"{kinds[0]} / {kinds[1]} / {kinds[2]} | {dec:.0f} | {cell(row[0])} | {cell(row[1])} | {cell(row[2])} | "
              f"{cell(row[3])} | {row[2][0] / row[3][0]:.2f}x | {cell(row[4])} |", flush=True)


if __name__ == "__main__":
    main()
