// shape: several kernels in one file (five) sharing inline helpers and one __noinline__ callee, the same calls on their lines
#include "r2_math.cuh"

__device__ __noinline__ float shared_tail(float x)
{
    float y = bump(x);
    return y > 4.f ? soft(y) : sq(y);
}

__global__ void k_add(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = a[i] + pipe3(b[i]);
}

__global__ void k_tail(float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = shared_tail(a[i]);
}

__global__ void k_both(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = shared_tail(pipe3(b[i])) + pipe3(a[i]);
}

__global__ void k_loop(float *a, int n, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = a[i];
    for (int r = 0; r < reps; ++r)
        v = r & 1 ? shared_tail(v) : bump(v);
    a[i] = v;
}

__global__ void k_empty_branch(float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && a[i] > 0.f)
        a[i] = soft(a[i]);
}
