// k-means assignment: Dist<D,I> recursing over two lines (round 54 of
// docs/ptx-lines.md, rule 11 and rule 10's owed name)
template <int D, int I = 0>
struct Dist {
    __device__ static float run(const float *a, const float *b)
    {
        float d = a[I] - b[I];
        return d * d + Dist<D, I + 1>::run(a, b);
    }
};
template <int D>
struct Dist<D, D> {
    __device__ static float run(const float *, const float *) { return 0.f; }
};

template <int D>
__global__ void assign(const float *pts, const float *cent, int *lab, int n, int k)
{
    extern __shared__ float sc[];
    for (int i = threadIdx.x; i < k * D; i += blockDim.x) sc[i] = cent[i];
    __syncthreads();
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    float best = 3.4e38f; int bi = 0;
    for (int c = 0; c < k; ++c) {
        float d = Dist<D>::run(pts + p * D, sc + c * D);
        if (d < best) { best = d; bi = c; }
    }
    lab[p] = bi;
}
template __global__ void assign<3>(const float *, const float *, int *, int, int);
template __global__ void assign<8>(const float *, const float *, int *, int, int);
