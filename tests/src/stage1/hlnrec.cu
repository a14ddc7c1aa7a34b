#include "hln.cuh"
__device__ __noinline__ float rec(float x, int d) { return d == 0 ? cl(x) : rec(sq(x) * 0.5f, d - 1) + cl(x); }
__device__ __noinline__ float rec2(float x, int d) { float c = cl(x); return d <= 0 ? c : c + rec2(c - 0.1f, d - 2) * rec(c, 1); }
__global__ void k(const float *x, float *o, int d) { o[threadIdx.x] = rec(x[threadIdx.x], d) + rec2(x[0], d); }
// round 25 of docs/ptx-lines.md: header inline functions on the line numbers of their callers
