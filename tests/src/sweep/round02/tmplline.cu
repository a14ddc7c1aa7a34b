// shape: templates recursing on one line whose definitions sit under #line (a renumbered and renamed file), called in a loop
template <int N> struct Horner {
#line 200 "horner_gen.cuh"
    __device__ __forceinline__ static float eval(const float *c, float x) { return c[N] + x * Horner<N - 1>::eval(c, x); }
};
template <> struct Horner<0> {
    __device__ __forceinline__ static float eval(const float *c, float) { return c[0]; }
};
#line 10 "tmplline.cu"
template <int A, int B> __device__ __forceinline__ int ack(int x) { if constexpr (A == 0) return x + B + 1; else if constexpr (B == 0) return ack<A - 1, 1>(x); else return ack<A - 1, B - 1>(ack<A, B - 1>(x)); }

template <class T, int N> __device__ __forceinline__ T prod(T x) { if constexpr (N == 0) return T(1); else return x * prod<T, N - 1>(x); }

__global__ void horner_kernel(const float *coef, const float *in, float *out, int *iout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i], acc = 0.f;
    for (int k = 0; k < 3; ++k)
        acc += Horner<5>::eval(coef, x + k) * prod<float, 3>(x);
    out[i] = acc;
    iout[i] = ack<2, 2>(i) + prod<int, 4>(i);
}

#line 210 "horner_gen.cuh"
template <int N> __device__ __forceinline__ float chain(float x) { if constexpr (N == 0) return x; else return chain<N - 1>(x * 0.5f + N); }
#line 29 "tmplline.cu"
__global__ void chain_kernel(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = chain<6>(out[i]) + Horner<3>::eval(out, out[i]);
}
