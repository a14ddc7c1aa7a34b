#include "hln.cuh"
#define SQR(x) sq(x)
#define NRM(a, b) sqrtf(SQR(a) + SQR(b))
__device__ __noinline__ float nn(float a, float b, float c) { return NRM(a, b) + NRM(b, c) + NRM(c, a); }
__global__ void k(const float *x, float *o) {
  float v = nn(x[0], x[1], x[2]);
  o[threadIdx.x] = NRM(v, x[3]) + nn(v, v, v);
}
// round 25 of docs/ptx-lines.md: header inline functions on the line numbers of their callers
