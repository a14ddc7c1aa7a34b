#pragma once
#include "twohdr_a.cuh"
__device__ __forceinline__ float smooth(float t) { return sq(t) * (3.f - 2.f * t); }
__device__ __forceinline__ float poly(float t) { return cube(t) - lerp3(t, sq(t), 0.5f); }
__device__ __forceinline__ float mix(float a, float b, float t) { return lerp3(a, b, smooth(t)); }
