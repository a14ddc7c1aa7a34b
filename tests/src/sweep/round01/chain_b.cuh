// round01: the middle of the inlining chain
#pragma once
#include "chain_c.cuh"
__device__ __forceinline__ float b_step(float x)
{
    float y = c_poly(x);
    return c_clamp(y, -4.f, 4.f);
}
__device__ __forceinline__ float b_mix(float x, float t) { return c_lerp(c_sq(x), b_step(x), t); }
__device__ __forceinline__ float b_twice(float x) { return b_step(b_step(x)); }
