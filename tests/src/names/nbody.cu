// A small n-body step as a new user writes it: a template helper, a
// __forceinline__, an inline and a __noinline__ function, and a template
// kernel instantiated for float and double (tests/ref/check_names.py).
#include <cuda_runtime.h>

template <typename T> __device__ T sq(T x) { return x * x; }

__device__ __forceinline__ float softening() { return 1e-3f; }

__device__ inline float3 diff(float4 a, float4 b) { return make_float3(b.x - a.x, b.y - a.y, b.z - a.z); }

__device__ __noinline__ float inv_dist3(float3 d)
{
    float r2 = sq(d.x) + sq(d.y) + sq(d.z) + softening();
    return rsqrtf(r2 * r2 * r2);
}

__global__ void forces(const float4 *pos, float3 *acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float3 a = make_float3(0.f, 0.f, 0.f);
    for (int j = 0; j < n; j++) {
        float3 d = diff(pos[i], pos[j]);
        float s = pos[j].w * inv_dist3(d);
        a.x += d.x * s; a.y += d.y * s; a.z += d.z * s;
    }
    acc[i] = a;
}

template <typename T> __global__ void scale(T *v, T k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = sq(v[i]) * k;
}

template __global__ void scale<float>(float *, float, int);
template __global__ void scale<double>(double *, double, int);

int main()
{
    forces<<<1, 32>>>(nullptr, nullptr, 0);
    scale<float><<<1, 32>>>(nullptr, 1.f, 0);
    scale<double><<<1, 32>>>(nullptr, 1.0, 0);
    return cudaDeviceSynchronize() != cudaSuccess;
}
