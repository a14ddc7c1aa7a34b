// Fib<N> recursing twice on one line, a recursive List<T...>::sum and
// mutually recursive odd/even templates (round 5's r2.cu): rule 10 of
// docs/ptx-lines.md, a row of rows all owed before.
// recursive struct templates, tuple-like recursion, mutual recursion through templates
template <int N> struct Fib { __device__ __forceinline__ static float v(float x) { return Fib<N - 1>::v(x) + Fib<N - 2>::v(x * 0.5f); } };
template <> struct Fib<1> { __device__ __forceinline__ static float v(float x) { return x; } };
template <> struct Fib<0> { __device__ __forceinline__ static float v(float) { return 1.f; } };
template <typename H, typename... T> struct List { H h; List<T...> t; __device__ __forceinline__ float sum() const { return float(h) + t.sum(); } };
template <typename H> struct List<H> { H h; __device__ __forceinline__ float sum() const { return float(h); } };
template <int N> __device__ __forceinline__ float even(float x);
template <int N> __device__ __forceinline__ float odd(float x) { if constexpr (N == 0) return x; else return even<N - 1>(x + 1.f) * 0.5f; }
template <int N> __device__ __forceinline__ float even(float x) { if constexpr (N == 0) return -x; else return odd<N - 1>(x * 2.f) + 1.f; }
__global__ void k2(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    List<int, float, double, int> l{i, x, 2.0 * x, i + 1};
    out[i] = Fib<6>::v(x) + l.sum() + even<5>(x);
}
