// round01: the top of the inlining chain
#pragma once
#include "chain_b.cuh"
__device__ __forceinline__ float a_step(float x)
{
    float s = b_step(x) * 0.5f;
    s += b_mix(x, 0.25f);
    return s;
}
__device__ __forceinline__ float a_deep(float x) { return a_step(b_twice(c_poly(x))); }
