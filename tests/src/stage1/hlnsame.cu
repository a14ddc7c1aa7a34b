#include "hln.cuh"
__device__ __noinline__ float p2(float a, float b) { return lo(a) + lo(b); }
__device__ __noinline__ float p3(float a, float b) { return hi(a) * hi(b) - hi(a + b); }
__device__ __noinline__ float p4(float a, float b) { return cl(a) / (1.f + cl(b)); }
__global__ void k(const float *x, float *o) {
  float a = x[threadIdx.x], b = x[threadIdx.x + 1];
  o[threadIdx.x] = p2(a, b) + p3(a, b) + p4(a, b) + cl(a) + hi(b);
}
// round 25 of docs/ptx-lines.md: calls of hln.cuh's lo/hi/cl on their own line numbers
