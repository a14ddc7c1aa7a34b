#pragma once
__device__ __forceinline__ int ia(int x) { return x * 5 + 3; }
__device__ __noinline__ int na(int x) {
  int y = ia(x);
  return y ^ (y >> 2);
}
