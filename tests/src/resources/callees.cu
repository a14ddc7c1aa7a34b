// resources: __noinline__ callees with and without frames of their own,
// placed in two kernels (tests/ref/check_resources.py)
__device__ __noinline__ float helper(const float *a, int n) { float b[20]; for (int i = 0; i < 20; i++) b[i] = a[(i * n) % 97]; return b[n % 20] + b[(n + 3) % 20]; }
__device__ __noinline__ float leaf(float x) { return x * 2.f + 1.f; }
__global__ void k1(float *a, int n)
{
    float loc[40];
    for (int i = 0; i < 40; i++) loc[i] = a[(threadIdx.x + i) % n];
    a[threadIdx.x] = loc[n % 40] + helper(a, n) + leaf(a[0]);
}
__global__ void k3(float *a, int n) { a[threadIdx.x] = helper(a, n); }
