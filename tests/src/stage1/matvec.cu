// matrix-vector product by templates: rows recurse on one line, columns on another
template <int C> struct Dotc { __device__ __forceinline__ static float run(const float *a, const float *x) { return a[C - 1] * x[C - 1] + Dotc<C - 1>::run(a, x); } };
template <> struct Dotc<0> { __device__ __forceinline__ static float run(const float *, const float *) { return 0.f; } };
template <int R, int C> struct MatVec { __device__ __forceinline__ static void run(const float *a, const float *x, float *y) { y[R - 1] = Dotc<C>::run(a + (R - 1) * C, x); MatVec<R - 1, C>::run(a, x, y); } };
template <int C> struct MatVec<0, C> { __device__ __forceinline__ static void run(const float *, const float *, float *) {} };
__global__ void k(const float *A, const float *X, float *Y)
{
    float y[4];
    MatVec<4, 4>::run(A, X + threadIdx.x * 4, y);
    for (int i = 0; i < 4; ++i) Y[threadIdx.x * 4 + i] = y[i];
}
