// header callees placed in two kernels (hdrentry.cuh): whether ptxas repeats an entry row depends on how it would encode a row of the callee's first .loc (rule 5)
#include "hdrentry.cuh"
__global__ void k1(float *p, int n) {
  int i = threadIdx.x;
  float v = p[i];
  p[i] = smoothstep(0.f, 1.f, v) + lerp(v, 1.f, 0.5f);
}
__global__ void k2(float *p) {
  int i = threadIdx.x;
  p[i] = fbm(p[i], 4) * smoothstep(-1.f, 1.f, p[i]);
}
