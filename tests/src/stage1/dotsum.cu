// Dot<N> unrolled over several lines and Sum<N> on one line.  In sm_90+
// .debug_line the rows one step left owed (rule 10) are one row: when a
// later row takes some of them, it is the row of all (docs/ptx-lines.md).
// dot product unrolled by a template over several lines, and a one-line Sum<N>
template <int N> struct Dot {
    __device__ __forceinline__ static float run(const float *a, const float *b)
    {
        return a[N - 1] * b[N - 1] + Dot<N - 1>::run(a, b);
    }
};
template <> struct Dot<0> { __device__ __forceinline__ static float run(const float *, const float *) { return 0.f; } };
template <int N> struct Sum { __device__ __forceinline__ static float run(const float *a) { return a[N - 1] + Sum<N - 1>::run(a); } };
template <> struct Sum<0> { __device__ __forceinline__ static float run(const float *) { return 0.f; } };
__global__ void dots(const float *a, const float *b, float *o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = Dot<6>::run(a + 6 * i, b + 6 * i) / (1.f + Sum<6>::run(b + 6 * i));
}
