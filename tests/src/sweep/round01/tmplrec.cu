// shape: templates recursing on one line (Pow<N>, a variadic sum, an unrolling For<I,N>) inlined at each level
template <int N> __device__ __forceinline__ float ipow(float x) { return x * ipow<N - 1>(x); }
template <> __device__ __forceinline__ float ipow<0>(float) { return 1.f; }

__device__ __forceinline__ float vsum(float a) { return a; }
template <class... R> __device__ __forceinline__ float vsum(float a, R... r) { return a + vsum(r...); }

template <int I, int N> struct For {
    template <class F> __device__ __forceinline__ static void run(F f) { f(I); For<I + 1, N>::run(f); }
};
template <int N> struct For<N, N> {
    template <class F> __device__ __forceinline__ static void run(F) {}
};

template <int D> __device__ __forceinline__ int depth(int x) { return depth<D - 1>(x * 3 + D) ^ D; }
template <> __device__ __forceinline__ int depth<0>(int x) { return x; }

__global__ void tmpl_kernel(const float *in, float *out, int *iout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i];
    float acc = ipow<5>(x) + vsum(x, 1.f, 2.f, x, ipow<2>(x));
    For<0, 4>::run([&](int k) { acc += ipow<3>(x + k); });
    out[i] = acc;
    iout[i] = depth<6>(i);
}

template <class T> __device__ __forceinline__ T vmax(T a) { return a; }
template <class T, class... R> __device__ __forceinline__ T vmax(T a, R... r) { T m = vmax(r...); return a > m ? a : m; }

__global__ void tmpl_max(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = vmax(out[i], ipow<3>(out[i]), 0.5f, ipow<4>(out[i] - 1.f)) + depth<3>(i);
}
