// shape: an n-body step on a V3<T> template (float and double) across two headers, a warp-shuffle energy sum, three kernels
#include "r3_vec.cuh"

template <class T> __device__ __forceinline__ V3<T> accel(const V3<T> *p, int n, V3<T> me)
{
    V3<T> a{0, 0, 0};
    for (int j = 0; j < n; ++j) {
        V3<T> d = p[j] - me;
        a = a + unit(d) * (T)r3_rsq((float)norm2(d));
    }
    return a;
}

template <class T> __global__ void step(const V3<T> *p, V3<T> *v, int n, T dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = v[i] + accel(p, n, p[i]) * dt;
}
template __global__ void step<float>(const V3<float> *, V3<float> *, int, float);
template __global__ void step<double>(const V3<double> *, V3<double> *, int, double);

__global__ void energy(const V3<float> *v, float *e, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float k = i < n ? 0.5f * norm2(v[i]) : 0.f;
    k = r3_warp_sum(k);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(e, k);
}
