#pragma once
__device__ __forceinline__ float h0(float x) { return x > 0.f ? x : -x; }

__device__ __noinline__ float h1(float x) { return x - 1.f; }
__device__ __forceinline__ float h2(float x) { return h1(x) + h1(x - 1.f); }
__device__ __noinline__ float h3(float x) { return h2(x) + h2(x * x); }

__device__ __forceinline__ float h4(float x) { return x + 2.f; }
__device__ __forceinline__ float h5(float x) { return h4(x) + h0(x + 2.f); }
