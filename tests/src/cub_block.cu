// CUB block and warp primitives, compiled -G for the symbolizer's tests:
// deep template inlining whose stacks only the DIEs describe.
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_reduce.cuh>

template <int THREADS, int ITEMS>
__global__ void block_sum(const float *in, float *out, float *scan)
{
    using Load = cub::BlockLoad<float, THREADS, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using Reduce = cub::BlockReduce<float, THREADS>;
    using Scan = cub::BlockScan<float, THREADS>;
    using Store = cub::BlockStore<float, THREADS, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Reduce::TempStorage reduce;
        typename Scan::TempStorage scan;
        typename Store::TempStorage store;
    } tmp;
    float v[ITEMS];
    int base = blockIdx.x * THREADS * ITEMS;
    Load(tmp.load).Load(in + base, v);
    __syncthreads();
    float total = Reduce(tmp.reduce).Sum(v);
    __syncthreads();
    Scan(tmp.scan).InclusiveSum(v, v);
    __syncthreads();
    Store(tmp.store).Store(scan + base, v);
    if (threadIdx.x == 0)
        out[blockIdx.x] = total;
}

__global__ void warp_max(const int *in, int *out)
{
    using WarpReduce = cub::WarpReduce<int>;
    __shared__ typename WarpReduce::TempStorage tmp[4];
    int warp = threadIdx.x / 32;
    int m = WarpReduce(tmp[warp]).Reduce(in[blockIdx.x * blockDim.x + threadIdx.x], cuda::maximum<>{});
    if (threadIdx.x % 32 == 0)
        out[blockIdx.x * 4 + warp] = m;
}

template __global__ void block_sum<128, 4>(const float *, float *, float *);
