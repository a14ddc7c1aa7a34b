#pragma once
#include "hm1.cuh"
__device__ __noinline__ float d1(float a, float b) {
  float s = c3(a, b), t = c3(b, a);
  return s * t;
}
__device__ __noinline__ float d2(float a) {
  return c2(a) + c3(a, a);
}
