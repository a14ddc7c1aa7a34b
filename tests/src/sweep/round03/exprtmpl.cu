// shape: expression templates: operators build Add/Mul nodes whose eval recurses through the tree on one line, header scalars inside
#include "r3_base.cuh"

template <class L, class R> struct Add;
template <class L, class R> struct Mul;
struct Leaf {
    const float *p;
    __device__ __forceinline__ float eval(int i) const { return r3_clip(p[i]); }
};
struct Scalar {
    float s;
    __device__ __forceinline__ float eval(int) const { return s; }
};
template <class L, class R> struct Add { L l; R r; __device__ __forceinline__ float eval(int i) const { return l.eval(i) + r.eval(i); } };
template <class L, class R> struct Mul { L l; R r; __device__ __forceinline__ float eval(int i) const { return r3_mad(l.eval(i), r.eval(i), 0.f); } };
template <class L, class R> __device__ __forceinline__ Add<L, R> operator+(L l, R r) { return {l, r}; }
template <class L, class R> __device__ __forceinline__ Mul<L, R> operator*(L l, R r) { return {l, r}; }

__global__ void expr_kernel(const float *a, const float *b, const float *c, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    Leaf A{a}, B{b}, C{c};
    auto e = A * B + C * Scalar{2.f} + (A + B) * (B + C);
    auto f = e * e + A;
    out[i] = f.eval(i) + e.eval((i + 1) % n);
}

__global__ void expr_deep(const float *a, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    Leaf A{a};
    auto e = ((A + A) * (A + Scalar{1.f}) + A) * ((A * A) + (A * Scalar{3.f}));
    out[i] = e.eval(i);
}
