#pragma once
#include "hdra.cuh"
__device__ __forceinline__ int ib(int x) {
  return na(x) + ia(x);
}
__device__ __noinline__ int nb(int x) {
  int s = 0;
  for (int i = 0; i < 3; ++i)
    s += ib(x + i);
  return s;
}
