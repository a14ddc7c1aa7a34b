#include "lerp.cuh"
#define LERP3(a, b, c, t) mix(mix(a, b, t), mix(b, c, t), t)
__device__ __noinline__ float bez(float a, float b, float c, float t) { return LERP3(a, b, c, sat(t)); }
__global__ void k(const float *p, float *o, int n) {
  float t = threadIdx.x / (float)n;
  o[threadIdx.x] = bez(p[0], p[1], p[2], t) + LERP3(p[3], p[4], p[5], t);
}
// a macro of nested inline calls in a noinline callee, on line 3 as sat() of lerp.cuh: rule 15 at a
// sequence start, the lone advance a context row replaces, Mercury 0x92 0 before a lone 0x90
