// noinline callees of two headers entered at inlined calls (rule 12): ptxas writes no set_file for them (rule 8's stale file)
#include "hdrb.cuh"
__device__ __noinline__ int local(int x) {
  return nb(x) - na(x);
}
__global__ void k(int *p) { p[threadIdx.x] = local(p[threadIdx.x]) + ib(1); }
