// Chain<N> recursing over three lines, bottoming out in a noinline base()
// (round 57 of docs/ptx-lines.md: rule 4, where names stop counting)
__device__ __noinline__ float base(float x) { return x * x + 1.f; }
template <int N>
struct Chain {
    __device__ static float f(float x)
    {
        float a = Chain<N - 1>::f(x + 1.f);
        float b = a > 3.f ? a : base(a);
        return b * 0.75f;
    }
};
template <> struct Chain<0> { __device__ static float f(float x) { return base(x); } };
__global__ void k(const float *x, float *y, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) y[t] = Chain<4>::f(x[t]);
}
