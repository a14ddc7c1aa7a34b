// resources: a local array (stack frame), static __shared__ and a barrier,
// __launch_bounds__, a __noinline__ callee (tests/ref/check_resources.py)
__device__ __noinline__ float helper(float *buf, int n) { float s = 0; for (int i = 0; i < n; i++) s += buf[i % 16] * i; return s; }
__global__ void k1(float *a, int n)
{
    __shared__ float tile[256];
    __shared__ int cnt;
    float loc[40];
    for (int i = 0; i < 40; i++) loc[i] = a[(threadIdx.x + i) % n];
    tile[threadIdx.x] = loc[n % 40] + helper(loc, n);
    __syncthreads();
    if (threadIdx.x == 0) cnt = n;
    a[threadIdx.x] = tile[(threadIdx.x + 1) % 256] + cnt;
}
__global__ void __launch_bounds__(128) k2(double *b) { b[threadIdx.x] *= 2.0; }
