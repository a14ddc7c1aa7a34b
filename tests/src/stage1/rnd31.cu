#include "rnd31.cuh"
__device__ __forceinline__ float c0(float x) { return h2(x) + h2(x * 2.f) + h1(x); }
__device__ __noinline__ float c1(float x) { float t = c0(x); return t + h0(t); }

__device__ __forceinline__ float c2(float x) { return h1(x) + h1(x * 2.f) + h3(x); }
__device__ __noinline__ float c3(float x) { return h1(h1(x)) + h3(x); }
__global__ void k0(const float *x, float *o) { float v = x[threadIdx.x]; o[threadIdx.x] = h3(v) + c3(v+1.f) + h0(v+2.f) + c0(v+3.f); }
__global__ void k1(const float *x, float *o, int n) {
  float v = x[threadIdx.x];
  for (int i = 0; i < n; ++i) v = c2(v) + c3(v+1.f) + c1(v+2.f);
  o[threadIdx.x] = v;
}
// round 28 of docs/ptx-lines.md: tests/tools/rand_stage1.py 31 32
