#include "warpred.cuh"
__global__ void softmax(const float *x, float *y, int cols)
{
    const float *row = x + blockIdx.x * cols;
    float m = -1e30f;
    for (int c = threadIdx.x; c < cols; c += 32) m = fmaxf(m, row[c]);
    m = warp_max(m);
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += 32) s += __expf(row[c] - m);
    s = warp_sum(s);
    for (int c = threadIdx.x; c < cols; c += 32) y[blockIdx.x * cols + c] = __expf(row[c] - m) / s;
}
__global__ void layernorm(const float *x, float *y, const float *g, const float *b, int cols)
{
    __shared__ float sh[8];
    const float *row = x + blockIdx.x * cols;
    float s = 0.f, q = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) { float v = row[c]; s += v; q += v * v; }
    s = block_sum<float, 8>(s, sh);
    __syncthreads();
    q = block_sum<float, 8>(q, sh);
    float mu = s / cols, rs = rsqrtf(q / cols - mu * mu + 1e-5f);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) y[blockIdx.x * cols + c] = (row[c] - mu) * rs * g[c] + b[c];
}
