#pragma once

__device__ __forceinline__ float h0(float x) { return x * x; }
__device__ __forceinline__ float h1(float x) { return x * x; }
__device__ __forceinline__ float h2(float x) { return x + 2.f; }

__device__ __noinline__ float h3(float x) { return h0(h0(x)); }
__device__ __forceinline__ float h4(float x) { return h0(x) + h3(x * 0.5f + 1.f); }
__device__ __forceinline__ float h5(float x) { return h3(h3(x)); }
__device__ __noinline__ float h6(float x) { return h2(h2(x)); }
// round 31 of docs/ptx-lines.md (generated)
