// shape: a 1-D stencil: a __noinline__ loop callee placed in two kernels, inline helpers under a #line jump, shared memory halo
#include "r3_base.cuh"

#line 300
__device__ __forceinline__ float tap(const float *s, int k)
{
    return r3_mad(s[k - 1], 0.25f, r3_mad(s[k], 0.5f, s[k + 1] * 0.25f));
}
#line 10

__device__ __noinline__ float smooth_run(const float *s, int k, int reps)
{
    float v = tap(s, k);
    for (int r = 0; r < reps; ++r)
        v = r3_clip(v + tap(s, k) * 0.1f);
    return v;
}

__global__ void stencil_shared(const float *in, float *out, int n)
{
    __shared__ float s[258];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x + 1;
    s[t] = i < n ? in[i] : 0.f;
    if (threadIdx.x == 0) s[0] = i > 0 ? in[i - 1] : 0.f;
    if (threadIdx.x == blockDim.x - 1) s[t + 1] = i + 1 < n ? in[i + 1] : 0.f;
    __syncthreads();
    if (i < n)
        out[i] = smooth_run(s, t, 3) + tap(s, t);
}

__global__ void stencil_global(const float *in, float *out, int n, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i + 1 < n)
        out[i] = smooth_run(in, i, reps);
}
