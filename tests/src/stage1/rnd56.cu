#include "rnd56.cuh"

__device__ __forceinline__ float c0(float x) { return h1(x) + h1(x * 2.f) + h1(x); }

__device__ __forceinline__ float c1(float x) { return h0(h1(x)) + h1(x); }

__device__ __noinline__ float c2(float x) { return c1(x) * c1(x + 1.f); }
__device__ __noinline__ float c3(float x) { return h0(x) * c2(x + 1.f); }
__global__ void k0(const float *x, float *o) { float v = x[threadIdx.x]; o[threadIdx.x] = c1(v) + c3(v+1.f) + c1(v+2.f); }
__global__ void k1(const float *x, float *o) { float v = x[threadIdx.x]; o[threadIdx.x] = c3(v) + h0(v+1.f) + h3(v+2.f); }
// round 29 of docs/ptx-lines.md: tests/tools/rand_stage1.py 56 57
