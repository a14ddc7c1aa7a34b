// shape: macros expanding to several inlined calls on one line: nested macros, a do/while(0) statement macro, a macro loop
#include "r2_math.cuh"

#define STEP(x) (sq(x) + bump(half(x)))
#define TWICE(x) STEP(STEP(x))
#define ACC(a, x) do { a += soft(x); a *= half(a) + sq(x); } while (0)
#define REPEAT4(s) s; s; s; s
#define MIX(a, b) (pipe3(a) * soft(b) + pipe3(b))

__global__ void macro_kernel(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i], a = 0.f;
    float t = TWICE(x) + STEP(x * 2.f);
    ACC(a, t);
    REPEAT4(ACC(a, x));
    for (int k = 0; k < 3; ++k)
        ACC(a, MIX(a, x + k));
    out[i] = a + MIX(t, a);
}

__global__ void macro_short(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = out[i]; REPEAT4(v = STEP(v)); out[i] = v; }
}

__device__ __noinline__ float nl(float x) { return TWICE(x); }
#define BOTH(x) (nl(x) + STEP(nl(x)))

__global__ void macro_noinl(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = BOTH(out[i]) * MIX(out[i], nl(out[i]));
}
