#include "rdcend.cuh"
__device__ __noinline__ float c0(float x) { return h1(h4(x)) + h0(x); }
__device__ __noinline__ float c1(float x) { return h0(x) + h0(x * 2.f) + h2(x); }
__device__ __noinline__ float c2(float x) {
  float t = h5(x);
  for (int i = 0; i < 3; ++i) t += h0(t * 0.5f);
  if (t > 1.f) t = h2(t) - h0(x);
  return t;
}
__global__ void k0(const float *x, float *o) { float v = x[threadIdx.x]; o[threadIdx.x] = h1(v) + c2(v+1.f) + h3(v+2.f); }
__global__ void k1(const float *x, float *o) { float v = x[threadIdx.x]; o[threadIdx.x] = h3(v) + c2(v+1.f) + h3(v+2.f); }
