#include "rnd15.cuh"
__device__ __noinline__ float c0(float x) { return h3(x) * h3(x + 1.f); }
__device__ __forceinline__ float c1(float x) { return h4(x) * h1(x + 1.f); }
__device__ __forceinline__ float c2(float x) { return h3(x) + h3(x * 2.f) + h1(x); }
__device__ __forceinline__ float c3(float x) { return c2(h4(x)) + h3(x); }

__device__ __forceinline__ float c4(float x) { float t = c3(x); return t + h0(t); }
__global__ void k0(const float *x, float *o, int n) {
  float v = x[threadIdx.x];
  for (int i = 0; i < n; ++i) v = c0(v) + c1(v+1.f) + c2(v+2.f) + c0(v+3.f);
  o[threadIdx.x] = v;
}
// round 27 of docs/ptx-lines.md: tests/tools/rand_stage1.py 15 16
