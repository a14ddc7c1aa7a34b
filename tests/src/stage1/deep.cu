#include "deep3.cuh"
__device__ __forceinline__ float top(float x)
{
    float a = l3a(x);
    float b = l3b(a);
    return a + b + l2a(b);
}
__global__ void deep(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = top(x[i]) - l1b(x[i]);
}
