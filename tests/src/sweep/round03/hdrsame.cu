// shape: a header and a .cu whose functions stand on the same line numbers, calls alternating between the two files
#include "same_lines.cuh"

__device__ __forceinline__ float mid3(float x) { return lvl3(x) + 2.f; }

__device__ __forceinline__ float mid2(float x) { return lvl2(mid3(x)); }

__device__ __noinline__ float mid_noinl(float x) { return lvl1(mid2(x)); }

__device__ __forceinline__ float mid1(float x)
{
    return lvl1(x) + mid_noinl(lvl2(x));
}

__global__ void same_kernel(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i];
    out[i] = mid1(x) + lvl1(mid3(x)) + mid2(lvl3(x));
}

__global__ void same_stride(float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float v = out[i];
        out[i] = mid_noinl(v) + lvl_noinl(mid1(v)) - lvl2(mid2(v));
    }
}
