// round01: the leaves of the inlining chain (chain_a -> chain_b -> chain_c)
#pragma once
__device__ __forceinline__ float c_sq(float x) { return x * x; }
__device__ __forceinline__ float c_lerp(float a, float b, float t) { return a + t * (b - a); }
__device__ __forceinline__ float c_clamp(float x, float lo, float hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}
__device__ __forceinline__ float c_poly(float x) { return c_sq(x) * 0.25f + x - 1.f; }
