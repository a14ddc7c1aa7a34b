#include "rnd3.cuh"
__device__ __forceinline__ float c0(float x) { return h0(x) + h0(x * 2.f) + h2(x); }
__device__ __noinline__ float c1(float x) { return h3(h3(x)) + h4(x); }
__device__ __noinline__ float c2(float x) { float t = h0(x); return t + h1(t); }
__global__ void k0(const float *x, float *o, int n) {
  float v = x[threadIdx.x];
  for (int i = 0; i < n; ++i) v = h4(v) + c1(v+1.f) + c1(v+2.f) + c0(v+3.f);
  o[threadIdx.x] = v;
}
__global__ void k1(const float *x, float *o, int n) {
  float v = x[threadIdx.x];
  for (int i = 0; i < n; ++i) v = h3(v) + c0(v+1.f) + h0(v+2.f);
  o[threadIdx.x] = v;
}
// round 26 of docs/ptx-lines.md: tests/tools/rand_stage1.py 3 4
