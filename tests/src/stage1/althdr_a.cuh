#pragma once
template <int N> struct Balt;
template <int N>
struct Aalt {
    __device__ static float f(const float *v)
    {
        float s = v[0] * 2.f;
        return s + Balt<N - 1>::f(v + 1);
    }
};
template <> struct Aalt<0> { __device__ static float f(const float *v) { return v[0]; } };
