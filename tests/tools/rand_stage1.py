#!/usr/bin/env python3
"""Random stage-1 test programs: a header of inline and noinline functions and
a .cu file of callers and kernels, whose line numbers coincide across the two
files by chance (rule 15 of docs/ptx-lines.md).  Writes gSEED.cuh and gSEED.cu
in the current directory for SEED in [FIRST, LAST).  Compile them in every mode
of issue 20 and run `cudwarf verify --ptx` on each cubin (round 26).  With
--rich, some functions of the .cu file span several lines, with a loop and a
branch (round 31); the same seeds give other programs then.

usage: rand_stage1.py [--rich] FIRST LAST"""
import random, sys
RICH = "--rich" in sys.argv
if RICH:
    sys.argv.remove("--rich")


def prog(seed):
    R = random.Random(seed * 7919 + 1 if RICH else seed)
    hname = f"g{seed}.cuh"
    hfun = []  # (name, kind)
    hl = ["#pragma once"]
    ops = ["x * 0.5f + 1.f", "x > 0.f ? x : -x", "x * x", "x - 1.f", "x + 2.f"]
    for i in range(R.randint(4, 7)):
        kind = "__forceinline__" if R.random() < 0.7 else "__noinline__"
        name = f"h{i}"
        if hfun and R.random() < 0.6:
            a = R.choice(hfun)[0]; b = R.choice(hfun)[0]
            body = f"return {a}(x) + {b}({R.choice(ops)});" if R.random() < 0.5 else f"return {a}({a}(x));"
        else:
            body = f"return {R.choice(ops)};"
        if R.random() < 0.3: hl.append("")
        hl.append(f"__device__ {kind} float {name}(float x) {{ {body} }}")
        hfun.append((name, kind))
    cl = [f'#include "{hname}"']
    cfun = []
    for i in range(R.randint(3, 6)):
        kind = "__forceinline__" if R.random() < 0.4 else "__noinline__"
        name = f"c{i}"
        pool = hfun + cfun
        a = R.choice(pool)[0]; b = R.choice(pool)[0]; c = R.choice(hfun)[0]
        forms = [f"return {a}(x) * {b}(x + 1.f);", f"return {a}({b}(x)) + {c}(x);", f"float t = {a}(x); return t + {c}(t);",
                 f"return {a}(x) + {a}(x * 2.f) + {b}(x);"]
        if R.random() < 0.25: cl.append("")
        if RICH and R.random() < 0.5:
            cl.append(f"__device__ {kind} float {name}(float x) {{")
            cl.append(f"  float t = {a}(x);")
            cl.append(f"  for (int i = 0; i < 3; ++i) t += {c}(t * 0.5f);")
            cl.append(f"  if (t > 1.f) t = {b}(t) - {c}(x);")
            cl.append(f"  return t;")
            cl.append("}")
        else:
            cl.append(f"__device__ {kind} float {name}(float x) {{ {R.choice(forms)} }}")
        cfun.append((name, kind))
    pool = hfun + cfun
    ks = R.randint(1, 2)
    for k in range(ks):
        calls = " + ".join(f"{R.choice(pool)[0]}(v{'+' + str(j) + '.f' if j else ''})" for j in range(R.randint(2, 4)))
        if R.random() < 0.5:
            cl.append(f"__global__ void k{k}(const float *x, float *o) {{ float v = x[threadIdx.x]; o[threadIdx.x] = {calls}; }}")
        else:
            cl.append(f"__global__ void k{k}(const float *x, float *o, int n) {{")
            cl.append(f"  float v = x[threadIdx.x];")
            cl.append(f"  for (int i = 0; i < n; ++i) v = {calls};")
            cl.append(f"  o[threadIdx.x] = v;")
            cl.append("}")
    open(hname, "w").write("\n".join(hl) + "\n")
    open(f"g{seed}.cu", "w").write("\n".join(cl) + "\n")
for s in range(int(sys.argv[1]), int(sys.argv[2])):
    prog(s)
