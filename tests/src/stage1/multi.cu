// a __noinline__ function called from two kernels, one called from one
__device__ __forceinline__ float inner(float x) { return x > 0.0f ? x * 2.0f : -x; }
__device__ __noinline__ float shared_helper(const float *p, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += inner(p[i]);
    return s;
}
__device__ __noinline__ float only_a(float x)
{
    return inner(x) + inner(x * x);
}
__global__ void ka(const float *p, float *out, int n)
{
    out[threadIdx.x] = shared_helper(p, n) + only_a(p[threadIdx.x]);
}
__global__ void kb(const float *p, float *out, int n)
{
    out[threadIdx.x] = shared_helper(p + 1, n - 1);
}
