#include "rich16.cuh"
__device__ __forceinline__ float c0(float x) {
  float t = h2(x);
  for (int i = 0; i < 3; ++i) t += h4(t * 0.5f);
  if (t > 1.f) t = h0(t) - h4(x);
  return t;
}
__device__ __noinline__ float c1(float x) { return h4(x) + h4(x * 2.f) + c0(x); }
__device__ __forceinline__ float c2(float x) {
  float t = h6(x);
  for (int i = 0; i < 3; ++i) t += h4(t * 0.5f);
  if (t > 1.f) t = c0(t) - h4(x);
  return t;
}
__device__ __noinline__ float c3(float x) { float t = h3(x); return t + h3(t); }
__global__ void k0(const float *x, float *o) { float v = x[threadIdx.x]; o[threadIdx.x] = h1(v) + h6(v+1.f) + c1(v+2.f); }
// round 31 of docs/ptx-lines.md: tests/tools/rand_stage1.py --rich 16 17
