#include "twocalls.cuh"
__device__ __forceinline__ float sq(float x) { return x * x; }
__device__ __forceinline__ float both(float a, float b) { return sq(a) + sq(b); }

__global__ void two_on_a_line(const float *p, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = sq(p[i]) + sq(p[i + 1]) + hdr_scale(p[i], 3.0f);
    out[i + n] = both(p[i], p[i] * 2.0f) + both(p[i + 2], 1.0f); out[i + 2 * n] = hdr_scale(sq(p[i]), 0.5f);
}

__global__ void loops(const float *p, float *out, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int j = 0; j < m; j++) {
        for (int k = 0; k < j; k++)
            acc += hdr_scale(p[(i + j * k) % n], (float)k);
        if (acc > 100.0f)
            acc = sq(acc) * 0.001f;
    }
    out[i] = acc;
}
