// round02: a __noinline__ layer between two inline layers
#pragma once
#include "r2_math.cuh"
__device__ __forceinline__ float pre(float x) { return pipe3(x) - sq(x); }
__device__ __noinline__ float middle(float x, int k)
{
    float a = pre(x);
    for (int j = 0; j < k; ++j)
        a = bump(a) * 0.25f + pipe3(a);
    return a;
}
__device__ __forceinline__ float post(float x) { return soft(middle(x, 2)) + half(x); }
