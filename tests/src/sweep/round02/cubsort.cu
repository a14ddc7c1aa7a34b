// shape: cub BlockRadixSort between BlockLoad and BlockStore, and BlockAdjacentDifference/BlockDiscontinuity flags after it
#include <cub/cub.cuh>

constexpr int T = 64, I = 4;

__global__ void sort_kernel(const unsigned *in, unsigned *out, int *heads)
{
    using Load = cub::BlockLoad<unsigned, T, I, cub::BLOCK_LOAD_TRANSPOSE>;
    using Sort = cub::BlockRadixSort<unsigned, T, I>;
    using Disc = cub::BlockDiscontinuity<unsigned, T>;
    using Store = cub::BlockStore<unsigned, T, I, cub::BLOCK_STORE_TRANSPOSE>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Store::TempStorage store;
    } io_tmp;
    __shared__ typename Sort::TempStorage sort_tmp;
    __shared__ typename Disc::TempStorage disc_tmp;
    unsigned keys[I];
    int flags[I];
    int base = blockIdx.x * T * I;
    Load(io_tmp.load).Load(in + base, keys);
    __syncthreads();
    Sort(sort_tmp).Sort(keys);
    __syncthreads();
    Disc(disc_tmp).FlagHeads(flags, keys, [](unsigned a, unsigned b) { return a != b; });
    __syncthreads();
    Store(io_tmp.store).Store(out + base, keys);
    int h = 0;
    for (int k = 0; k < I; ++k)
        h += flags[k];
    atomicAdd(heads + blockIdx.x, h);
}
