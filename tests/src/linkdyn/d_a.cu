// linkdyn: extern (dynamic) __shared__ arrays and no device function's own
// __shared__ variable, so that on sm_90 nvlink leaves the shared window out
// of the arrays' symbol values, yet writes windowed addresses into
// .debug_info (docs/linking.md, "Shared memory").  Kernels with and
// without static shared memory, and a device function using the array.
extern __shared__ int dyn_a[];
__device__ __noinline__ int dyn_use(int i) { return dyn_a[i] * 2; }
__global__ void k_nostatic(int *o)
{
    dyn_a[threadIdx.x] = threadIdx.x;
    __syncthreads();
    o[threadIdx.x] = dyn_a[threadIdx.x ^ 1];
}
__global__ void k_static(int *o)
{
    __shared__ double big[100];
    big[threadIdx.x % 100] = 1;
    dyn_a[threadIdx.x] = 3;
    __syncthreads();
    o[threadIdx.x] = dyn_a[0] + big[5] + dyn_use(threadIdx.x);
}
