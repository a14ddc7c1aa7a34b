// shape: cub block primitives: BlockLoad/BlockExchange, BlockScan with a running-prefix callback over tiles, raking BlockReduce, segmented WarpReduce
#include <cub/cub.cuh>

constexpr int THREADS = 128, ITEMS = 4;

struct RunningPrefix {
    int total;
    __device__ int operator()(int block_aggregate)
    {
        int old = total;
        total += block_aggregate;
        return old;
    }
};

__global__ void tiles_kernel(const int *in, int *out, int *sums, int tiles)
{
    using Load = cub::BlockLoad<int, THREADS, ITEMS, cub::BLOCK_LOAD_DIRECT>;
    using Exchange = cub::BlockExchange<int, THREADS, ITEMS>;
    using Scan = cub::BlockScan<int, THREADS, cub::BLOCK_SCAN_RAKING>;
    using Reduce = cub::BlockReduce<int, THREADS, cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY>;
    __shared__ typename Load::TempStorage load_tmp;
    __shared__ typename Exchange::TempStorage exchange_tmp;
    __shared__ typename Scan::TempStorage scan_tmp;
    __shared__ typename Reduce::TempStorage reduce_tmp;
    RunningPrefix prefix{0};
    int largest = 0;
    for (int t = 0; t < tiles; ++t) {
        int items[ITEMS];
        int base = (blockIdx.x * tiles + t) * THREADS * ITEMS;
        Load(load_tmp).Load(in + base, items);
        Exchange(exchange_tmp).BlockedToStriped(items);
        __syncthreads();
        Scan(scan_tmp).ExclusiveSum(items, items, prefix);
        __syncthreads();
        int m = Reduce(reduce_tmp).Reduce(items, ::cuda::maximum<int>());
        largest = m > largest ? m : largest;
        __syncthreads();
        for (int k = 0; k < ITEMS; ++k)
            out[base + k * THREADS + threadIdx.x] = items[k];
    }
    if (threadIdx.x == 0)
        sums[blockIdx.x] = prefix.total + largest;
}

__global__ void segments_kernel(const float *in, const int *heads, float *out)
{
    using WR = cub::WarpReduce<float>;
    __shared__ typename WR::TempStorage tmp[THREADS / 32];
    int w = threadIdx.x / 32, i = blockIdx.x * THREADS + threadIdx.x;
    float s = WR(tmp[w]).HeadSegmentedSum(in[i], heads[i] != 0);
    if (heads[i])
        out[i] = s;
}
