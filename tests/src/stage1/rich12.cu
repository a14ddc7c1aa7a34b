#include "rich12.cuh"
__device__ __noinline__ float c0(float x) {
  float t = h1(x);
  for (int i = 0; i < 3; ++i) t += h1(t * 0.5f);
  if (t > 1.f) t = h4(t) - h1(x);
  return t;
}
__device__ __noinline__ float c1(float x) { return h0(x) + h0(x * 2.f) + c0(x); }
__device__ __forceinline__ float c2(float x) { return h4(x) * c0(x + 1.f); }
__global__ void k0(const float *x, float *o, int n) {
  float v = x[threadIdx.x];
  for (int i = 0; i < n; ++i) v = h2(v) + h5(v+1.f);
  o[threadIdx.x] = v;
}
// round 31 of docs/ptx-lines.md: tests/tools/rand_stage1.py --rich 12 13
