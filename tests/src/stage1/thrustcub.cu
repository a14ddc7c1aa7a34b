// Stage-1 program: thrust::transform_reduce and cub::DeviceRadixSort (where
// docs/ptx-lines.md rules 8 and 6, the .loc-instance part, were found).
#include <cub/cub.cuh>
#include <thrust/device_ptr.h>
#include <thrust/transform_reduce.h>
#include <thrust/functional.h>
struct sqr { __host__ __device__ float operator()(float x) const { return x * x; } };
float norm2(float *d, int n)
{
    thrust::device_ptr<float> p(d);
    return thrust::transform_reduce(p, p + n, sqr(), 0.f, thrust::plus<float>());
}
void sortit(const unsigned *k, unsigned *o, int n, void *tmp, size_t bytes)
{
    cub::DeviceRadixSort::SortKeys(tmp, bytes, k, o, n);
}
template <typename T> __global__ void hist(const T *in, int *bins, int n)
{
    using BL = cub::BlockLoad<T, 128, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    __shared__ typename BL::TempStorage t;
    T v[4];
    BL(t).Load(in + blockIdx.x * 512, v, n - blockIdx.x * 512);
    #pragma unroll
    for (int j = 0; j < 4; j++) atomicAdd(&bins[(int)v[j] & 255], 1);
}
template __global__ void hist<float>(const float *, int *, int);
