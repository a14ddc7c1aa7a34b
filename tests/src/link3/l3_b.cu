// link3: the definitions l3_a.cu uses, a static local, more shared memory,
// and a dynamic (extern) __shared__ array, whose debug address nvlink
// computes differently on sm_90 (docs/linking.md).
#include "l3_common.cuh"
__device__ int shared_total;
extern __shared__ float dyn_b[];
__device__ int gc[3];
__constant__ int cc[2];
__device__ __noinline__ int helper(int x)
{
    static __device__ int calls;
    calls++;
    return l3_mix(x) + gc[1] + cc[0] + calls;
}
__global__ void kb(int *o)
{
    __shared__ double sb[8];
    __shared__ int sc[4];
    sb[threadIdx.x & 7] = o[0];
    sc[threadIdx.x & 3] = o[1];
    dyn_b[threadIdx.x] = o[2];
    __syncthreads();
    shared_total += (int)sb[1] + sc[2] + (int)dyn_b[1] + helper(3);
}
