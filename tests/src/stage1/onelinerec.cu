// Stage-1 program: templates whose own .loc recurses on one line (a
// variadic vsum, a For<I, N> unroller, depth<D>); at -O1..-O3 the three
// recursions' instructions interleave.  Needs rules 7, 9 and 10 of
// docs/ptx-lines.md (owed context rows); built by tests/gen.sh.
template <typename T> __device__ __forceinline__ T vsum(T a) { return a; }
template <typename T, typename... R> __device__ __forceinline__ T vsum(T a, R... r) { return a + vsum(r...); }
template <int I, int N> struct For {
    template <typename F> __device__ __forceinline__ static void run(F f) { f(I); For<I + 1, N>::run(f); }
};
template <int N> struct For<N, N> { template <typename F> __device__ __forceinline__ static void run(F) {} };
template <int D> __device__ __forceinline__ float depth(float x) { return depth<D - 1>(x * 0.5f) + x; }
template <> __device__ __forceinline__ float depth<0>(float x) { return x; }
__global__ void k(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i], acc = 0.f;
    For<0, 5>::run([&](int j) { acc += x * j; });
    acc += vsum(x, x * 2.f, x * 3.f, x * 4.f, x * 5.f);
    acc += depth<6>(x);
    out[i] = acc;
}
