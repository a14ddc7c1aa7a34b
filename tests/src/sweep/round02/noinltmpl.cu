// shape: a __noinline__ template taking a lambda, instantiated twice, and a __noinline__ recursive template member
#include "r2_mid.cuh"

template <class F> __device__ __noinline__ float fold(const float *p, int n, F f)
{
    float acc = 0.f;
    for (int k = 0; k < n; ++k)
        acc = f(acc, p[k]);
    return acc;
}

template <int D> struct Tree {
    __device__ __noinline__ static float sum(const float *p, int lo, int hi)
    {
        if (hi - lo <= 2 || D == 0)
            return pre(p[lo]) + (hi - lo > 1 ? p[lo + 1] : 0.f);
        int m = (lo + hi) / 2;
        return Tree<D ? D - 1 : 0>::sum(p, lo, m) + Tree<D ? D - 1 : 0>::sum(p, m, hi);
    }
};

__global__ void fold_kernel(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int len = i % 9 + 1;
    float a = fold(in, len, [](float s, float v) { return s + pipe3(v); });
    float b = fold(in, len, [i](float s, float v) { return s * 0.5f + middle(v, i & 3); });
    out[i] = a + b + Tree<3>::sum(in, 0, len);
}
