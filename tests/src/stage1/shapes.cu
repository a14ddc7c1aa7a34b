#include "shapes.cuh"
__device__ __noinline__ float sum(Shape **s, int n) {
  float t = 0;
  for (int i = 0; i < n; ++i) t += s[i]->area();
  return t;
}
__global__ void k(float *o, int n) {
  Sq a(o[0]);
  Ci b(o[1]);
  Shape *arr[2] = {&a, &b};
  o[threadIdx.x] = sum(arr, 2) + a.area();
}
// virtual functions of a header (round 22 of docs/ptx-lines.md); k() calls Sq's constructor of shapes.cuh's line 8 on its line 8
