// Stage-1 program: cub::DeviceReduce::Sum, whose BlockReduce recurses on one
// line (`.loc 8 146 5, ..., inlined_at 8 146 5`) -- where docs/ptx-lines.md
// rule 9 (a .loc that writes nothing still selects its context) was found:
// sm_90 .debug_line at -O1..-O3.
#include <cub/device/device_reduce.cuh>
void sum(const int *in, int *out, int n, void *tmp, size_t bytes)
{
    cub::DeviceReduce::Sum(tmp, bytes, in, out, n);
}
