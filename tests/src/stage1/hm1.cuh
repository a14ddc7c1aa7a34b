#pragma once
__device__ __forceinline__ float c1(float x) { return x * 0.5f; }
__device__ __forceinline__ float c2(float x) { return c1(x) + c1(x * x); }
__device__ __forceinline__ float c3(float a, float b) {
  return c2(a) - c2(b);
}
