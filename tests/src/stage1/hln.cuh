#pragma once
__device__ __forceinline__ float lo(float x) { return x < 0.f ? 0.f : x; }
__device__ __forceinline__ float hi(float x) { return x > 1.f ? 1.f : x; }
__device__ __forceinline__ float cl(float x) { return hi(lo(x)); }
__device__ __forceinline__ float sq(float x) { return x * x; }
__device__ __forceinline__ float ln(float a, float b, float t) { return a + (b - a) * cl(t); }
__device__ __forceinline__ float dst(float a, float b) { return sqrtf(sq(a) + sq(b)); }
__device__ __noinline__ float hn(float a, float b) { return dst(cl(a), ln(a, b, 0.5f)); }
// round 25 of docs/ptx-lines.md: inline functions on lines 2..7 that the .cu files' callers share
