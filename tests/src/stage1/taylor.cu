// A Taylor sine unrolled by template recursion (taylor_sin<K> on two
// lines, ipow<N> on one).  In sm_90+ .debug_line the 0x90 a deferred
// .loc's contexts chose stands, and the next context sharing that row
// writes its own, even the same one (rule 7 of docs/ptx-lines.md).
template <int N> __device__ __forceinline__ float ipow(float x) { return x * ipow<N - 1>(x); }
template <> __device__ __forceinline__ float ipow<0>(float) { return 1.f; }
template <int N> struct Fact { static constexpr float v = N * Fact<N - 1>::v; };
template <> struct Fact<0> { static constexpr float v = 1.f; };
template <int K> __device__ __forceinline__ float taylor_sin(float x)
{
    constexpr int n = 2 * K + 1;
    float term = ipow<n>(x) / Fact<n>::v;
    return (K % 2 ? -term : term) + taylor_sin<K - 1>(x);
}
template <> __device__ __forceinline__ float taylor_sin<-1>(float) { return 0.f; }
__global__ void tsin(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = taylor_sin<4>(x[i]);
}
