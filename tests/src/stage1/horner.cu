// Polynomial evaluation via Horner in a recursive constexpr template and a noinline fallback
template <int N>
__device__ __forceinline__ float horner(const float *c, float x) { return c[N] + x * horner<N - 1>(c, x); }
template <>
__device__ __forceinline__ float horner<0>(const float *c, float x) { return c[0]; }
__device__ __noinline__ float horner_n(const float *c, int n, float x)
{
    float s = c[n];
    for (int i = n - 1; i >= 0; --i) s = c[i] + x * s;
    return s;
}
__global__ void poly(const float *c, const float *x, float *y, int n, int deg)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = deg == 6 ? horner<6>(c, x[i]) : horner_n(c, deg, x[i]);
}
