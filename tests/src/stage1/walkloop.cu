// Walk<D> recursing from inside a loop (round 58 of docs/ptx-lines.md:
// rule 7, the same 0x90 twice where a deferred .loc shares its parent's row)
template <int D>
struct Walk {
    __device__ static float go(const float *v, int w)
    {
        float s = 0.f;
        for (int i = 0; i < 2; ++i) {
            s += v[i * w];
            s += Walk<D - 1>::go(v + i + 1, w) * 0.5f;
        }
        return s;
    }
};
template <> struct Walk<0> { __device__ static float go(const float *v, int) { return v[0]; } };
__global__ void k(const float *x, float *y, int w, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) y[t] = Walk<3>::go(x + t, w);
}
