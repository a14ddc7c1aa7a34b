// noinline functions of one header beginning in inline functions of another on the same line number (rules 5 and 12)
#include "hm2.cuh"
__global__ void k1(float *p) {
  float a = p[0], b = p[1];
  p[threadIdx.x] = d1(a, b) + c3(a, b);
}
__global__ void k2(float *p) { p[threadIdx.x] = d2(p[threadIdx.x]) * c2(p[0]); }
