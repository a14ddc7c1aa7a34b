#include "rich10.cuh"
__device__ __forceinline__ float c0(float x) {
  float t = h2(x);
  for (int i = 0; i < 3; ++i) t += h2(t * 0.5f);
  if (t > 1.f) t = h5(t) - h2(x);
  return t;
}
__device__ __noinline__ float c1(float x) { return h0(x) + h0(x * 2.f) + h5(x); }
__device__ __noinline__ float c2(float x) {
  float t = h3(x);
  for (int i = 0; i < 3; ++i) t += h6(t * 0.5f);
  if (t > 1.f) t = h0(t) - h6(x);
  return t;
}
__device__ __noinline__ float c3(float x) {
  float t = h6(x);
  for (int i = 0; i < 3; ++i) t += h0(t * 0.5f);
  if (t > 1.f) t = c2(t) - h0(x);
  return t;
}
__device__ __noinline__ float c4(float x) { return h3(x) * h3(x + 1.f); }
__device__ __noinline__ float c5(float x) {
  float t = h5(x);
  for (int i = 0; i < 3; ++i) t += h3(t * 0.5f);
  if (t > 1.f) t = c0(t) - h3(x);
  return t;
}
__global__ void k0(const float *x, float *o, int n) {
  float v = x[threadIdx.x];
  for (int i = 0; i < n; ++i) v = c3(v) + h0(v+1.f) + h0(v+2.f) + h5(v+3.f);
  o[threadIdx.x] = v;
}
// round 31 of docs/ptx-lines.md: tests/tools/rand_stage1.py --rich 10 11
