// operator-() of xvec.cuh inlined twice on line 4 of tri_area() in xgeo.cuh: the same line number in another file (rules 2, 6, 10)
#include "xgeo.cuh"
__global__ void areas(const v3 *p, float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 2 < n)
    a[i] = tri_area(p[i], p[i + 1], p[i + 2]);
}
__global__ void bounce(v3 *d, const v3 *nrm) {
  int i = threadIdx.x;
  d[i] = reflect(d[i], nrm[i]);
  d[i] = norm(d[i]) + reflect(d[i], nrm[0]);
}
