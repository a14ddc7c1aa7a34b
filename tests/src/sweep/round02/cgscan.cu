// shape: cooperative_groups scans and partitions: inclusive/exclusive_scan on tiles, meta_group_rank, labeled_partition, any/all
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ int bucket(float x) { return x < 0.f ? 0 : (x < 1.f ? 1 : 2); }

__global__ void cgscan_kernel(const float *in, float *out, int *cnt, int n)
{
    auto block = cg::this_thread_block();
    auto tile = cg::tiled_partition<16>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = i < n ? in[i] : 0.f;
    float inc = cg::inclusive_scan(tile, x);
    float exc = cg::exclusive_scan(tile, x, cg::plus<float>());
    if (i < n)
        out[i] = inc - exc + tile.meta_group_rank();
    if (tile.all(x > 0.f) && tile.thread_rank() == 0)
        atomicAdd(cnt, 1);
    auto warp = cg::tiled_partition<32>(block);
    auto same = cg::labeled_partition(warp, bucket(x));
    int size = cg::reduce(same, 1, cg::plus<int>());
    if (same.thread_rank() == 0)
        atomicAdd(cnt + 1 + bucket(x), size);
    if (warp.any(x > 2.f) && warp.thread_rank() == 0)
        atomicAdd(cnt + 4, 1);
}

__global__ void cg_small_tiles(const int *in, int *out, int n)
{
    auto tile = cg::tiled_partition<4>(cg::this_thread_block());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int m = cg::reduce(tile, v, cg::greater<int>());
    int left = tile.shfl_up(v, 1);
    if (i < n)
        out[i] = m - left + bucket((float)v);
}
