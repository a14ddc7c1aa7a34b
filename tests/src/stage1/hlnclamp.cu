#include "hln.cuh"
#define CLAMP2(a, b) cl(a) + cl(b)
__device__ __noinline__ float f3(float a, float b) { return CLAMP2(a, b) * sq(a - b); }
__device__ __noinline__ float f4(float a, float b) { return CLAMP2(sq(a), b); }
__device__ __noinline__ float f5(float a) { return ln(a, 1.f, a) + CLAMP2(a, -a); }
__global__ void k(const float *x, float *o) { o[threadIdx.x] = f3(x[0], x[1]) + f4(x[2], x[3]) * f5(x[4]); }
// round 25 of docs/ptx-lines.md: a macro of two cl() calls in noinline callees, on hln.cuh's line numbers
