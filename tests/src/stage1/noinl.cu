// Stage-1 program: __noinline__ callees (a loop, device recursion) that ptxas
// places in the kernels' sections, and device function pointers.  At -O3
// on sm_100/120 shade() starts on a hoisted line-0 instruction: its entry
// row stands for its first .loc (docs/ptx-lines.md, rule 5).

__device__ __forceinline__ float sq(float x) { return x * x; }
__device__ __forceinline__ float lerp(float a, float b, float t) { return a + t * (b - a); }
__device__ __noinline__ float shade(float u, float v, int k)
{
    float acc = 0.f;
    for (int i = 0; i < k; i++) {
        acc += lerp(sq(u), sq(v), i * 0.1f);
        if (acc > 100.f) acc = sqrtf(acc);
    }
    return acc;
}
__device__ __noinline__ int collatz(int n) { return n <= 1 ? 0 : 1 + collatz((n & 1) ? 3 * n + 1 : n / 2); }
typedef float (*op_t)(float, float);
__device__ float addf(float a, float b) { return a + b; }
__device__ float mulf(float a, float b) { return a * b; }
__device__ op_t ops[2] = {addf, mulf};
__global__ void k1(const float *a, float *o, int n, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = shade(a[i], a[(i + 1) % n], k) + collatz(i);
}
__global__ void k2(const float *a, float *o, int n, int sel)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = ops[sel & 1](a[i], shade(a[i], 1.f, 3));
}
