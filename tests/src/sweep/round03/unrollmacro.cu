// shape: a macro-unrolled loop (UNROLL8 of a body with a fallthrough switch), each copy on one source line, and a partial unroll
#include "r3_base.cuh"

#define BODY(k)                                                 \
    switch ((code >> (2 * (k))) & 3) {                          \
    case 3: acc = r3_mad(acc, 1.5f, x); [[fallthrough]];         \
    case 2: acc = r3_clip(acc + x); [[fallthrough]];             \
    case 1: acc += r3_rsq(x * x); break;                         \
    default: acc -= x;                                           \
    }
#define UNROLL8 BODY(0) BODY(1) BODY(2) BODY(3) BODY(4) BODY(5) BODY(6) BODY(7)

__global__ void unroll_kernel(const unsigned *codes, const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned code = codes[i];
    float x = in[i], acc = 0.f;
    UNROLL8
    out[i] = acc;
}

__global__ void unroll_partial(const unsigned *codes, const float *in, float *out, int n, int len)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned code = codes[i];
    float acc = 0.f;
#pragma unroll 3
    for (int j = 0; j < len; ++j) {
        float x = in[(i + j) % n];
        BODY(j & 7)
    }
    out[i] = acc;
}
