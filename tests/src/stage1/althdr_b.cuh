#pragma once
#include "althdr_a.cuh"
template <int N>
struct Balt {
    __device__ static float f(const float *v)
    {
        float s = v[0] - 1.f;
        return s * Aalt<N - 1>::f(v + 1);
    }
};
template <> struct Balt<0> { __device__ static float f(const float *v) { return -v[0]; } };
