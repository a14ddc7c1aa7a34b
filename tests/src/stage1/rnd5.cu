#include "rnd5.cuh"
__device__ __noinline__ float c0(float x) { return h2(h2(x)) + h1(x); }
__device__ __forceinline__ float c1(float x) { float t = h5(x); return t + h3(t); }
__device__ __noinline__ float c2(float x) { return h2(x) * h4(x + 1.f); }
__device__ __noinline__ float c3(float x) { float t = h5(x); return t + h2(t); }
__global__ void k0(const float *x, float *o, int n) {
  float v = x[threadIdx.x];
  for (int i = 0; i < n; ++i) v = h5(v) + h2(v+1.f) + c1(v+2.f) + c1(v+3.f);
  o[threadIdx.x] = v;
}
__global__ void k1(const float *x, float *o, int n) {
  float v = x[threadIdx.x];
  for (int i = 0; i < n; ++i) v = h4(v) + h0(v+1.f);
  o[threadIdx.x] = v;
}
// round 26 of docs/ptx-lines.md: tests/tools/rand_stage1.py 5 6
