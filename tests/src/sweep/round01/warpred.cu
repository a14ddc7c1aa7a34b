// shape: warp shuffles and reductions (down and xor butterflies, ballot/popc, a block sum through shared memory)
#include "warp.cuh"

__device__ __forceinline__ float block_sum(float v)
{
    __shared__ float part[32];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0)
        part[w] = v;
    __syncthreads();
    v = threadIdx.x < (blockDim.x + 31) / 32 ? part[lane] : 0.f;
    return w == 0 ? warp_sum(v) : 0.f;
}

__global__ void reduce_kernel(const float *in, float *out, int *votes, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = i < n ? in[i] : 0.f;
    float s = block_sum(x);
    if (threadIdx.x == 0)
        out[blockIdx.x] = s;
    unsigned b = __ballot_sync(0xffffffffu, x > 0.f);
    float m = warp_max(x);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(votes, __popc(b));
    if (i < n)
        in[i] > m * 0.5f ? atomicAdd(votes + 1, 1) : 0;
}

__global__ void scan_kernel(float *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? data[i] : 0.f;
    int lane = threadIdx.x & 31;
    for (int o = 1; o < 32; o <<= 1) {
        float t = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o)
            v += t;
    }
    if (i < n)
        data[i] = v;
}
