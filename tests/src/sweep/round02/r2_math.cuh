// round02: inline math helpers shared by the round's programs
#pragma once
__device__ __forceinline__ float sq(float x) { return x * x; }
__device__ __forceinline__ float half(float x) { return x * 0.5f; }
__device__ __forceinline__ float bump(float x) { return sq(x) + half(x) + 1.f; }
__device__ __forceinline__ float soft(float x) { return x / (1.f + fabsf(x)); }
__device__ __forceinline__ float pipe3(float x) { return soft(bump(half(x))); }
