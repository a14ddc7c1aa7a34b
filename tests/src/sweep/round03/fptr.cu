// shape: a table of device function pointers (indirect calls to __noinline__ functions), a switch choosing among them, recursion through one
#include "r3_base.cuh"

typedef float (*op_t)(float, int);

__device__ __noinline__ float op_sq(float x, int) { return x * x; }
__device__ __noinline__ float op_mad(float x, int k) { return r3_mad(x, (float)k, 1.f); }
__device__ __noinline__ float op_clip(float x, int k) { return r3_clip(x * k); }
__device__ float op_rec(float x, int k) { return k <= 0 ? x : op_rec(r3_mad(x, 0.5f, 0.25f), k - 1); }

__device__ op_t table[4] = {op_sq, op_mad, op_clip, op_rec};

__device__ __forceinline__ op_t choose(int sel)
{
    switch (sel & 3) {
    case 0: return op_sq;
    case 1: return op_mad;
    case 2: return op_clip;
    default: return op_rec;
    }
}

__global__ void fptr_kernel(const int *sel, float *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = data[i];
    for (int k = 0; k < 4; ++k)
        v = table[(sel[i] + k) & 3](v, k) + choose(sel[i] >> k)(v, k + 1);
    data[i] = v;
}
