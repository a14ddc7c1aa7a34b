#pragma once
__device__ __forceinline__ float sq(float x) { return x * x; }
__device__ __forceinline__ float cube(float x) { return x * sq(x); }
__device__ __forceinline__ float lerp3(float a, float b, float t) { return a + t * (b - a); }
