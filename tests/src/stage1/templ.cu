template <int N> struct Unroll {
    template <typename F> __device__ __forceinline__ static float run(F f, float x)
    { return f(x) + Unroll<N - 1>::run(f, x * 0.5f); }
};
template <> struct Unroll<0> {
    template <typename F> __device__ __forceinline__ static float run(F, float) { return 0.0f; }
};
struct Poly {
    float a, b;
    __device__ __forceinline__ float operator()(float x) const { return a * x * x + b; }
};
template <typename T>
__device__ __forceinline__ T clamp01(T v) { return v < T(0) ? T(0) : (v > T(1) ? T(1) : v); }

__global__ void deep(const float *p, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        Poly q{p[0], p[1]};
        out[i] = clamp01(Unroll<6>::run(q, p[i]));
    }
}
