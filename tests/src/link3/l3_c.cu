// link3: shared memory in a device function called by two kernels, and
// extern (dynamic) shared memory.
#include "l3_common.cuh"
__device__ __noinline__ int dev_sh(int v)
{
    __shared__ int dsh[8];
    __shared__ char dpad[3];
    dsh[v & 7] = v; dpad[v % 3] = (char)v;
    __syncthreads();
    return dsh[(v + 1) & 7] + dpad[0];
}
extern __shared__ float dyn[];
__global__ void kc(int *o)
{
    __shared__ char c1[5];
    __shared__ double d1[3];
    c1[threadIdx.x % 5] = (char)o[0];
    d1[threadIdx.x % 3] = o[1];
    dyn[threadIdx.x] = o[2];
    __syncthreads();
    o[3] = l3_mix(o[5]) + c1[1] + (int)d1[2] + dev_sh(o[4]) + (int)dyn[7];
}
__global__ void kd(int *o) { __shared__ short s9[7]; s9[threadIdx.x % 7] = o[0]; __syncthreads(); o[1] = s9[2] + dev_sh(o[2]); }
