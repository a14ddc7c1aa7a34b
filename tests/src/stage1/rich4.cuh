#pragma once

__device__ __forceinline__ float h0(float x) { return x * x; }
__device__ __forceinline__ float h1(float x) { return h0(x) + h0(x > 0.f ? x : -x); }
__device__ __forceinline__ float h2(float x) { return x + 2.f; }
__device__ __forceinline__ float h3(float x) { return h2(x) + h2(x + 2.f); }
__device__ __forceinline__ float h4(float x) { return x > 0.f ? x : -x; }
// round 31 of docs/ptx-lines.md (generated)
