// Test program for cudwarf: types, inlining, device calls, shared memory.
#include <cstdio>

namespace geo {
struct Vec3 {
    float x, y, z;
    __device__ float dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
};
enum class Mode : int { Fast = 1, Exact = 2 };
union Bits { float f; unsigned u; };
}

template <typename T> __device__ __forceinline__ T clampv(T v, T lo, T hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

__device__ __forceinline__ float shade(const geo::Vec3 &a, const geo::Vec3 &b)
{
    return clampv(a.dot(b), 0.0f, 1.0f);
}

__device__ __noinline__ int count_bits(unsigned v)
{
    int n = 0;
    while (v) { n += v & 1; v >>= 1; }
    return n;
}

#ifdef WHOLE
__device__ int link_helper(int v) { return v + 1; }  // whole-program build: no second unit
#else
extern __device__ int link_helper(int v);
#endif

__constant__ float gain[4];
__device__ int hits;

__global__ void render(const geo::Vec3 *in, float *out, int n, geo::Mode mode)
{
    __shared__ float tile[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    geo::Bits b;
    b.f = 0.0f;
    if (i < n) {
        geo::Vec3 l = {0.5f, 0.5f, 0.7f};
        float s = shade(in[i], l) * gain[i & 3];
        b.f = s;
        tile[threadIdx.x & 127] = s;
        if (mode == geo::Mode::Exact)
            s += count_bits(b.u);
        out[i] = s + tile[(threadIdx.x + 1) & 127];
        atomicAdd(&hits, 1);
    }
}

__global__ void uses_other_unit(int *v)
{
    v[threadIdx.x] = link_helper(v[threadIdx.x]);
}
