#!/usr/bin/env python3
"""Mutants through the command line: truncated and byte-flipped copies of
real cubins (fixed seed) given to `cudwarf dump --all` and `cudwarf lines`.
Each run must exit 0 or 1 within 10 s, never by a signal; on 1, stderr is
one line per failed file naming the file and, for a bad section, the
section and offset ("cudwarf: FILE: SECTION+0xOFF: ..." or, for the
container, "cudwarf: FILE: offset 0x...: ...").  (tests/tools/mutate.c runs
15,000+ mutants in process; this checks what users see.)

usage: mutants_cli.py CUDWARF N FILE...
"""
import os, random, re, subprocess, sys, tempfile

cudwarf, n, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rnd = random.Random(7)
tmp = tempfile.mkdtemp()
msg = re.compile(r"^cudwarf: (.+?): ((\.[\w.]+|fatbin)\+0x[0-9a-f]+|offset 0x[0-9a-f]+): \S")
bad = runs = ones = 0
for i in range(n):
    src = rnd.choice(files)
    data = bytearray(open(src, "rb").read())
    if rnd.random() < 0.3:
        data = data[:rnd.randrange(1, len(data))]
    else:
        for _ in range(rnd.randrange(1, 6)):
            data[rnd.randrange(len(data))] ^= rnd.randrange(1, 256)
    path = os.path.join(tmp, f"m{i}.cubin")
    open(path, "wb").write(data)
    for args in (["dump", "--all"], ["lines"]):
        runs += 1
        try:
            r = subprocess.run([cudwarf, *args, path], capture_output=True, text=True, timeout=10,
                               errors="replace")
        except subprocess.TimeoutExpired:
            print(f"FAIL {src} mutant {i} {' '.join(args)}: hung")
            bad += 1
            continue
        ok = r.returncode in (0, 1)
        if r.returncode == 1:
            ones += 1
            lines = r.stderr.strip().splitlines()
            ok = len(lines) == 1 and msg.match(lines[0]) is not None and path in lines[0]
        elif r.returncode == 0:
            ok = r.stderr == ""
        if not ok:
            bad += 1
            if bad <= 5:
                print(f"FAIL {src} mutant {i} {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()[:300]}")
    os.unlink(path)
print(f"{'ok  ' if bad == 0 else 'FAIL'} command-line mutants: {runs} runs of {n} mutants, {ones} ended with one error line, {bad} bad")
sys.exit(1 if bad else 0)
