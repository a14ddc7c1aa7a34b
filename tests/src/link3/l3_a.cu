// link3: kernels with __shared__ arrays, __device__ and __constant__ data,
// calls into l3_b.cu (helper, shared_total).
#include "l3_common.cuh"
__device__ int ga[4];
__device__ int gb[8];
__constant__ float ca[4];
__constant__ float cb[4];
extern __device__ int shared_total;
__device__ int helper(int x);
__global__ void ka(int *o)
{
    __shared__ int s1[16];
    __shared__ float s2[32];
    s1[threadIdx.x & 15] = o[0];
    s2[threadIdx.x & 31] = ca[1] + cb[2];
    __syncthreads();
    o[1] = l3_mix(o[3]) + s1[3] + (int)s2[5] + ga[1] + gb[2] + helper(o[2]) + shared_total;
}
