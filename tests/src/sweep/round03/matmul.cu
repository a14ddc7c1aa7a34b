// shape: a shared-memory tiled matrix product templated on float/double, a cooperative_groups tile reduction in a lambda, a noinline epilogue
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "r3_base.cuh"
namespace cg = cooperative_groups;

constexpr int TS = 16;

template <class T> __device__ __noinline__ T epilogue(T v, T bias) { return v > 0 ? v + bias : v * (T)0.01 + bias; }

template <class T> __global__ void matmul(const T *A, const T *B, T *C, T *rowsum, int n)
{
    __shared__ T As[TS][TS], Bs[TS][TS];
    auto block = cg::this_thread_block();
    int r = blockIdx.y * TS + threadIdx.y, c = blockIdx.x * TS + threadIdx.x;
    T acc = 0;
    for (int t = 0; t < n; t += TS) {
        As[threadIdx.y][threadIdx.x] = r < n && t + threadIdx.x < n ? A[r * n + t + threadIdx.x] : T(0);
        Bs[threadIdx.y][threadIdx.x] = c < n && t + threadIdx.y < n ? B[(t + threadIdx.y) * n + c] : T(0);
        block.sync();
#pragma unroll
        for (int k = 0; k < TS; ++k)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        block.sync();
    }
    auto row_sum = [&](T v) {
        auto tile = cg::tiled_partition<TS>(block);
        return cg::reduce(tile, v, cg::plus<T>());
    };
    T s = row_sum(acc);
    if (r < n && c < n)
        C[r * n + c] = epilogue(acc, (T)r3_clip((float)s));
    if (threadIdx.x == 0 && r < n)
        rowsum[r] = s;
}
template __global__ void matmul<float>(const float *, const float *, float *, float *, int);
template __global__ void matmul<double>(const double *, const double *, double *, double *, int);
