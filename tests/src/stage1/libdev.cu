// Stage-1 program: a __noinline__ libdevice-heavy callee of two kernels,
// device recursion, an inlined class with a destructor, unrolled loops.
#include <math.h>
__device__ __noinline__ float special(float x)
{
    float a = erff(x) + powf(fabsf(x), 1.5f);
    return a + logf(1.f + x * x) + tgammaf(1.f + fabsf(x) * 0.1f);
}
__device__ __forceinline__ float clampf(float x, float lo, float hi) { return fminf(fmaxf(x, lo), hi); }
__device__ float dev_rec(int n, float x) { return n <= 0 ? x : dev_rec(n - 1, x * 0.5f) + clampf(x, 0, 1); }
struct Acc {
    float s, c;
    __device__ Acc() : s(0), c(0) {}
    __device__ void add(float v) { float y = v - c; float t = s + y; c = (t - s) - y; s = t; }
    __device__ ~Acc() {}
};
__global__ void k1(const float *in, float *out, int n)
{
    Acc a;
    #pragma unroll 4
    for (int i = threadIdx.x; i < n; i += blockDim.x) a.add(special(in[i]) + clampf(in[i], -1, 1));
    out[threadIdx.x] = a.s + dev_rec(threadIdx.x & 7, a.c);
}
__global__ void k2(float *p, int n)
{
    float v = p[threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    if ((threadIdx.x & 31) == 0) p[threadIdx.x / 32] = special(v) + clampf(v, 0, 2);
}
