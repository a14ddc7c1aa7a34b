#!/usr/bin/env python3
"""A PC-sampling profile by source line and by inlined function.

    profile.py [--sm N] [--top K] [--json] FILE SAMPLES.csv

SAMPLES.csv has a header and rows `kernel,pc_offset,samples` (CUPTI's PC
sampling gives the function name and the offset in it; pc_offset may be
decimal or 0x hex).  FILE is the cubin, fatbin, executable or library the
kernels came from.  Every sample is charged to the source line of the
innermost frame and to the innermost (possibly inlined) function; samples
whose PC has no line are charged to "??".
"""
import argparse, collections, csv, json, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import cudwarf  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sm")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("file")
    ap.add_argument("samples")
    a = ap.parse_args()
    with open(a.samples, newline="") as f:
        rows = [(r["kernel"], int(r["pc_offset"], 0), int(r["samples"])) for r in csv.DictReader(f)]
    by_line, by_func = collections.Counter(), collections.Counter()
    with cudwarf.open(a.file) as cu:
        stacks = cu.symbolize_many([f"{k}+0x{o:x}" for k, o, _ in rows], sm=a.sm)
    for (_, _, n), frames in zip(rows, stacks):
        if frames:
            inner = frames[0]
            by_line[f"{inner.path}:{inner.line}"] += n
            by_func[inner.function_demangled or inner.function or "??"] += n
        else:
            by_line["??"] += n
            by_func["??"] += n
    total = sum(n for _, _, n in rows)
    if a.json:
        json.dump({"samples": total, "by_line": dict(by_line), "by_function": dict(by_func)}, sys.stdout)
        print()
        return
    for title, c in (("source line", by_line), ("function (innermost, inlined or not)", by_func)):
        print(f"{'samples':>9} {'%':>6}  {title}")
        for key, n in c.most_common(a.top):
            print(f"{n:9d} {100.0 * n / total:5.1f}%  {key}")
        rest = sum(n for _, n in c.most_common()[a.top:])
        if rest:
            print(f"{rest:9d} {100.0 * rest / total:5.1f}%  (the rest)")
        print()


if __name__ == "__main__":
    main()
