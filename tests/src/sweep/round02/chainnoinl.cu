// shape: an inlining chain across two headers with a __noinline__ layer in the middle, entered from inlined code in two kernels
#include "r2_mid.cuh"

__device__ __forceinline__ float top(float x) { return post(x) + pre(x); }

__device__ __forceinline__ float top2(float x)
{
    float a = top(x);
    float b = middle(a, 1);
    return post(b) * a;
}

__global__ void chain_a(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = top2(in[i]);
}

__global__ void chain_b(float *out, int n, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = out[i];
    v = middle(v, k) + top(v);
    out[i] = post(v);
}

__global__ void chain_loop(const float *in, float *out, int n, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = in[i];
    for (int r = 0; r < reps; ++r)
        v = top2(v) - middle(v, r & 3);
    out[i] = v;
}
