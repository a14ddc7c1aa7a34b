// shape: cooperative_groups: thread_block, tiled_partition<32>/<8>, cg::reduce and shfl on tiles, a coalesced group
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

template <class Tile> __device__ __forceinline__ float tile_sum(Tile t, float v)
{
    return cg::reduce(t, v, cg::plus<float>());
}

__device__ __forceinline__ int tile_max(cg::thread_block_tile<8> t, int v)
{
    for (int o = t.size() / 2; o > 0; o /= 2)
        v = max(v, t.shfl_down(v, o));
    return v;
}

__global__ void cg_kernel(const float *in, float *out, int *imax, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> oct = cg::tiled_partition<8>(block);
    int i = block.group_index().x * block.size() + block.thread_rank();
    float x = i < n ? in[i] : 0.f;
    float s = tile_sum(warp, x);
    int m = tile_max(oct, (int)(x * 100.f));
    if (warp.thread_rank() == 0)
        atomicAdd(out, s);
    if (oct.thread_rank() == 0)
        atomicMax(imax, m);
    block.sync();
    if (x > 0.5f) {
        cg::coalesced_group act = cg::coalesced_threads();
        float t = cg::reduce(act, x, cg::plus<float>());
        if (act.thread_rank() == 0)
            atomicAdd(out + 1, t);
    }
}
