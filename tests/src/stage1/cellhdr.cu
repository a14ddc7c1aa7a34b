#include "cell.cuh"
__device__ __noinline__ float u1(Cell c) { return c.sum() + c.diff(); }
__device__ __noinline__ float u2(Cell c) { c.scale(2.f); return c.prod(); }
__device__ __noinline__ float u3(Cell c) { return c.sum() * c.diff() + c.prod(); }
__device__ __noinline__ float u4(Cell c) { c.scale(0.5f); return u1(c) + c.sum(); }
__global__ void k(const Cell *c, float *o) { Cell x = c[threadIdx.x]; o[threadIdx.x] = u1(x) + u2(x) + u3(x) + u4(x); }
// round 25 of docs/ptx-lines.md: header inline functions on the line numbers of their callers
