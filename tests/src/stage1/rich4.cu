#include "rich4.cuh"
__device__ __forceinline__ float c0(float x) { return h3(h3(x)) + h4(x); }
__device__ __noinline__ float c1(float x) { return h4(x) * h2(x + 1.f); }

__device__ __noinline__ float c2(float x) { return c1(h2(x)) + h3(x); }
__global__ void k0(const float *x, float *o, int n) {
  float v = x[threadIdx.x];
  for (int i = 0; i < n; ++i) v = c2(v) + h1(v+1.f) + c1(v+2.f) + c0(v+3.f);
  o[threadIdx.x] = v;
}
// round 31 of docs/ptx-lines.md: tests/tools/rand_stage1.py --rich 4 5
