// shape: a #pragma unroll loop over a switch with fallthrough whose cases call inlined header helpers, and a jump table of them
#include "r2_math.cuh"

__device__ __forceinline__ float dispatch(int op, float v)
{
    switch (op) {
    case 0: v = sq(v);
        [[fallthrough]];
    case 1: v = half(v) + bump(v);
        break;
    case 2: v = soft(v);
        [[fallthrough]];
    case 3: v = pipe3(v);
        [[fallthrough]];
    case 4: v += 1.f;
        break;
    default: v = -v;
    }
    return v;
}

__global__ void switch_kernel(const int *ops, float *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = data[i];
#pragma unroll 4
    for (int k = 0; k < 8; ++k)
        v = dispatch((ops[i] >> (k * 3)) & 7, v);
    data[i] = v;
}

__global__ void switch_fixed(float *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = data[i];
#pragma unroll
    for (int k = 0; k < 6; ++k)
        v = dispatch(k, v);
    data[i] = v;
}
