// A second template-heavy unit for the link benchmark: CUB device-wide
// algorithms for the key types cub_big.cu does not use.
#include <cub/cub.cuh>

template <typename T> void run_more(T *d_in, T *d_out, int n, void *tmp, size_t &bytes)
{
    cub::DeviceRadixSort::SortKeysDescending(tmp, bytes, d_in, d_out, n);
    cub::DeviceReduce::Min(tmp, bytes, d_in, d_out, n);
    cub::DeviceScan::InclusiveSum(tmp, bytes, d_in, d_out, n);
}

void instantiate_more(void *tmp, size_t &bytes, int n)
{
    run_more<short>((short *)tmp, (short *)tmp, n, tmp, bytes);
    run_more<unsigned char>((unsigned char *)tmp, (unsigned char *)tmp, n, tmp, bytes);
    run_more<unsigned long long>((unsigned long long *)tmp, (unsigned long long *)tmp, n, tmp, bytes);
}
