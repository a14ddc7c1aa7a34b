#pragma once
#include "xvec.cuh"
__device__ __noinline__ float tri_area(v3 a, v3 b, v3 c) {
  v3 u = b - a, w = c - a;
  v3 x = {u.y * w.z - u.z * w.y, u.z * w.x - u.x * w.z, u.x * w.y - u.y * w.x};
  return 0.5f * len(x);
}
__device__ __noinline__ v3 reflect(v3 d, v3 n) {
  n = norm(n);
  return d - n * (2.f * dot(d, n));
}
