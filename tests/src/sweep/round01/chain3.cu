// shape: inlining chains four deep across three headers, one call per level and several per line
#include "chain_a.cuh"

__device__ __forceinline__ float local_top(float x)
{
    float u = a_deep(x);
    float v = a_step(u) + b_twice(u);
    return c_clamp(v, -8.f, 8.f);
}

__global__ void chain_kernel(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i];
    float acc = 0.f;
    for (int k = 0; k < 4; ++k) {
        acc += local_top(x + k);
        x = b_mix(x, 0.5f);
    }
    out[i] = acc + a_step(acc);
}

__global__ void chain_short(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = c_poly(out[i]) + b_step(out[i]) + a_step(out[i]);
}
