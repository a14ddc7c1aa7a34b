// shape: a histogram: cooperative_groups tiles, a macro of several inlined calls per use, a switch with fallthrough, atomics
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "r3_base.cuh"
namespace cg = cooperative_groups;

#define BIN(x) ((int)((r3_clip(r3_mad(x, 0.5f, 0.5f)) + 1.f) * 3.99f))
#define WEIGH(x, w) (r3_clip(x) * (w) + r3_mad(x, x, w))

__device__ __forceinline__ float weight(int b, float x)
{
    float w = 1.f;
    switch (b) {
    case 7: w += 0.5f; [[fallthrough]];
    case 6: w += WEIGH(x, 0.25f); [[fallthrough]];
    case 5: w *= 2.f; break;
    case 0: w = 0.f; break;
    default: w = WEIGH(x, w);
    }
    return w;
}

__global__ void hist_kernel(const float *in, float *hist, int n)
{
    __shared__ float local[8];
    auto block = cg::this_thread_block();
    auto tile = cg::tiled_partition<32>(block);
    if (block.thread_rank() < 8) local[block.thread_rank()] = 0.f;
    block.sync();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = i < n ? in[i] : 0.f;
    int b = BIN(x);
    atomicAdd(&local[b], weight(b, x));
    float tot = cg::reduce(tile, WEIGH(x, 1.f), cg::plus<float>());
    block.sync();
    if (block.thread_rank() < 8) atomicAdd(&hist[block.thread_rank()], local[block.thread_rank()]);
    if (tile.thread_rank() == 0) atomicAdd(&hist[8], tot);
}
