// A template-heavy program for benchmarks: CUB device-wide algorithms for
// several key types.  With -G its .debug_info runs to megabytes.
#include <cub/cub.cuh>

template <typename T> void run_all(T *d_in, T *d_out, int n, void *tmp, size_t &bytes)
{
    cub::DeviceRadixSort::SortKeys(tmp, bytes, d_in, d_out, n);
    cub::DeviceReduce::Sum(tmp, bytes, d_in, d_out, n);
    cub::DeviceReduce::Max(tmp, bytes, d_in, d_out, n);
    cub::DeviceScan::InclusiveSum(tmp, bytes, d_in, d_out, n);
    cub::DeviceScan::ExclusiveSum(tmp, bytes, d_in, d_out, n);
}

void instantiate(void *tmp, size_t &bytes, int n)
{
    run_all<int>((int *)tmp, (int *)tmp, n, tmp, bytes);
    run_all<unsigned>((unsigned *)tmp, (unsigned *)tmp, n, tmp, bytes);
    run_all<float>((float *)tmp, (float *)tmp, n, tmp, bytes);
    run_all<double>((double *)tmp, (double *)tmp, n, tmp, bytes);
    run_all<long long>((long long *)tmp, (long long *)tmp, n, tmp, bytes);
}
