// Second translation unit, linked with kern.cu by nvlink.
__device__ __forceinline__ int twice(int v) { return v * 2; }

__device__ int link_helper(int v)
{
    int acc = 0;
    for (int k = 0; k < v; k++)
        acc += twice(k);
    return acc;
}

__global__ void other_kernel(int *p)
{
    p[threadIdx.x] = link_helper(p[threadIdx.x]) + twice(3);
}
