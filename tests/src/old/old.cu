__device__ __forceinline__ float sq(float x) { return x * x; }
__device__ __noinline__ float poly(float x) { return sq(x) + 3.f * x + 1.f; }
__global__ void kern(float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = poly(a[i]) + sq(a[i]);
}
