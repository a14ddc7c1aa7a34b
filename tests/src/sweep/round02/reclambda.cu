// shape: recursion meets lambdas: recursive functions called from lambdas, a self-recursive generic lambda, a lambda down a recursive template
#include "r2_math.cuh"

__device__ float tri(int n) { return n <= 0 ? 0.f : n + tri(n - 1); }

__device__ int collatz(unsigned x, int steps)
{
    if (x <= 1 || steps > 64)
        return steps;
    return collatz(x & 1 ? 3 * x + 1 : x / 2, steps + 1);
}

template <int N, class F> __device__ __forceinline__ float nest(F f, float x)
{
    if constexpr (N == 0) return x; else return f(nest<N - 1>(f, x));
}

__global__ void reclambda_kernel(const float *in, float *out, int *steps, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    auto f = [](float v) { return bump(v) * 0.125f + tri(3); };
    auto g = [&](float v) { return f(v) + tri(i % 5); };
    auto fact = [](auto self, int k) -> int { return k <= 1 ? 1 : k * self(self, k - 1); };
    out[i] = g(in[i]) + nest<4>(f, in[i]) + nest<2>(g, f(in[i]));
    steps[i] = collatz(i + 1, 0) + fact(fact, i % 7);
}

__global__ void rec_only(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    auto h = [](int k) { return collatz(k, 0) + (int)tri(k & 7); };
    out[i] = h(i) + h(i + 1);
}
