#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void stage(const float *in, float *out, int n)
{
    extern __shared__ float sh[];
    auto blk = cg::this_thread_block();
    for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
        cg::memcpy_async(blk, sh, in + base, sizeof(float) * blockDim.x);
        cg::wait(blk);
        auto t32 = cg::tiled_partition<32>(blk);
        float v = sh[threadIdx.x];
        float s = cg::reduce(t32, v, cg::plus<float>());
        float m = cg::reduce(t32, v, cg::greater<float>());
        if (t32.thread_rank() == 0) out[base / 32 + t32.meta_group_rank()] = s / m;
        blk.sync();
    }
}
