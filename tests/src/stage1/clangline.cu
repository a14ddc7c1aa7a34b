// PTX from another producer for stage 1: LLVM's NVPTX backend (clang 14,
// no CUDA headers: it cannot parse CUDA 13's) writes its .file directives
// *last*, plain .locs (no inlined_at), and with -g its own DWARF sections.
// clang -x cuda -nocudainc -nocudalib --cuda-gpu-arch=sm_70 --cuda-device-only
//       -O2 -gline-tables-only (or -g) -S clangline.cu -o clangline.ptx
// then `.version 8.8` / `.target sm_90|sm_100` for ptxas 13.0 (no sm_70).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#include <__clang_cuda_builtin_vars.h>
__device__ __attribute__((always_inline)) inline float sq(float x) { return x * x; }
__device__ __attribute__((noinline)) float poly(float x)
{
    float y = sq(x) + 1.0f;
    return sq(y) - x;
}
__global__ void k(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = poly(p[i]) + sq(p[i]);
}
