namespace geo {
__device__ __forceinline__ float area(float r) { return 3.14159f * r * r; }
__device__ __forceinline__ float area(float w, float h) { return w * h; }
}
namespace phys {
__device__ __forceinline__ float area(float r, int scale = 2) { return geo::area(r) * scale; }
__device__ __noinline__ float mass(float r, float rho = 1.5f) { return area(r) * rho + geo::area(r, r); }
}
__global__ void props(const float *r, float *m, float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { m[i] = phys::mass(r[i]); a[i] = phys::area(r[i], 3) + geo::area(r[i], 2.f); }
}
