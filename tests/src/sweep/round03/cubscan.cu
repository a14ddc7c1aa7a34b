// shape: cub BlockScan and BlockReduce with lambda operators, a max-plus scan, and a template recursing on one line per item
#include <cub/cub.cuh>

template <int K> __device__ __forceinline__ float poly(float x) { if constexpr (K == 0) return 1.f; else return 1.f + x * poly<K - 1>(x); }

constexpr int TB = 128;

__global__ void scan_lambda(const float *in, float *out, float *tot)
{
    using Scan = cub::BlockScan<float, TB, cub::BLOCK_SCAN_WARP_SCANS>;
    using Red = cub::BlockReduce<float, TB, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
    __shared__ typename Scan::TempStorage ts;
    __shared__ typename Red::TempStorage tr;
    int i = blockIdx.x * TB + threadIdx.x;
    float x = poly<4>(in[i]);
    float run, agg;
    auto maxplus = [](float a, float b) { return fmaxf(a, 0.f) + b; };
    Scan(ts).InclusiveScan(x, run, maxplus, agg);
    __syncthreads();
    float m = Red(tr).Reduce(run, [](float a, float b) { return a > b ? a : b; });
    out[i] = run;
    if (threadIdx.x == 0)
        tot[blockIdx.x] = m + agg;
}

__global__ void scan_excl(const int *in, int *out)
{
    using Scan = cub::BlockScan<int, TB>;
    __shared__ typename Scan::TempStorage ts;
    int i = blockIdx.x * TB + threadIdx.x;
    int v = (int)poly<3>((float)(in[i] & 7));
    int r;
    Scan(ts).ExclusiveScan(v, r, 0, [](int a, int b) { return a ^ b; });
    out[i] = r;
}
