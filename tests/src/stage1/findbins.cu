// Integer bins found by a binary search that templates unroll on one line
// (Find<LO,HI>::at with if constexpr), then shared atomics.  In sm_90+
// .debug_line a deferred .loc waits through .locs whose contexts are only
// owed, and the context written last includes a 0x90 that goes out
// whatever replaces it (rules 7 and 11 of docs/ptx-lines.md).
template <int LO, int HI> struct Find { __device__ __forceinline__ static int at(const int *e, int v) { if constexpr (HI - LO <= 1) return LO; else { constexpr int M = (LO + HI) / 2; return v < e[M] ? Find<LO, M>::at(e, v) : Find<M, HI>::at(e, v); } } };
__global__ void bins(const int *edges, const int *v, int *hist, int n)
{
    __shared__ int sh[8];
    if (threadIdx.x < 8) sh[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&sh[Find<0, 8>::at(edges, v[i])], 1);
    __syncthreads();
    if (threadIdx.x < 8) atomicAdd(&hist[threadIdx.x], sh[threadIdx.x]);
}
