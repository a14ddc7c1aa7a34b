#include "rnd13.cuh"
__device__ __noinline__ float c0(float x) { return h4(x) + h4(x * 2.f) + h4(x); }
__device__ __noinline__ float c1(float x) { float t = h5(x); return t + h2(t); }
__device__ __noinline__ float c2(float x) { return h2(c1(x)) + h5(x); }
__device__ __forceinline__ float c3(float x) { return h2(x) + h2(x * 2.f) + c2(x); }
__global__ void k0(const float *x, float *o) { float v = x[threadIdx.x]; o[threadIdx.x] = h4(v) + c0(v+1.f) + h2(v+2.f) + c3(v+3.f); }
__global__ void k1(const float *x, float *o, int n) {
  float v = x[threadIdx.x];
  for (int i = 0; i < n; ++i) v = c3(v) + h3(v+1.f);
  o[threadIdx.x] = v;
}
// round 27 of docs/ptx-lines.md: tests/tools/rand_stage1.py 13 14
