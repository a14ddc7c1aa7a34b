// shape: loops unrolled by hand with a switch that falls through (Duff's device), and #pragma unroll around a switch
__device__ __forceinline__ float step(float a, float x) { return a * 0.75f + x; }

__device__ __forceinline__ float duff(const float *p, int n)
{
    float a = 0.f;
    int k = 0, rounds = (n + 3) / 4;
    if (n <= 0)
        return a;
    switch (n % 4) {
    case 0: do { a = step(a, p[k++]);
    case 3:      a = step(a, p[k++]);
    case 2:      a = step(a, p[k++]);
    case 1:      a = step(a, p[k++]);
            } while (--rounds > 0);
    }
    return a;
}

__global__ void duff_kernel(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = duff(in + i, (i % 11) + 1);
}

__global__ void unrolled_switch(const int *op, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = out[i];
#pragma unroll
    for (int k = 0; k < 6; ++k) {
        switch ((op[i] + k) & 3) {
        case 0:
            v += 1.f;
            [[fallthrough]];
        case 1:
            v *= 1.5f;
            break;
        case 2:
            v = step(v, (float)k);
            [[fallthrough]];
        default:
            v -= 0.25f;
        }
    }
    out[i] = v;
}
