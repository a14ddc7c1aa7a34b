__device__ __forceinline__ float clampv(float x, float lo, float hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}
__device__ __forceinline__ float smooth(float x)
{
    float y = clampv(x * 0.5f, -1.0f, 1.0f);
    return y * y * (3.0f - 2.0f * y);
}
__device__ __noinline__ float heavy(const float *p, int n)
{
    float acc = 0.0f;
    for (int i = 0; i < n; i++)
        acc += smooth(p[i]) + smooth(p[i] * 2.0f);
    return acc;
}
__global__ void kern(const float *p, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = heavy(p + i, n) + smooth(p[i]);
}
