// shape: recursive __device__ functions (binary recursion, mutual recursion, recursion through a noinline helper)
__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ int is_odd(int n);
__device__ int is_even(int n) { return n == 0 ? 1 : is_odd(n - 1); }
__device__ int is_odd(int n) { return n == 0 ? 0 : is_even(n - 1); }

__device__ __noinline__ float walk(const float *t, int node, int n, int lvl)
{
    if (node >= n || lvl > 6)
        return 0.f;
    float l = walk(t, 2 * node + 1, n, lvl + 1);
    float r = walk(t, 2 * node + 2, n, lvl + 1);
    return t[node] + (l > r ? l : r);
}

__device__ unsigned gcd(unsigned a, unsigned b)
{
    if (b == 0)
        return a;
    return gcd(b, a % b);
}

__global__ void rec_kernel(const float *tree, int n, float *out, int *iout)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[i] = walk(tree, i, n, 0);
    iout[i] = fib(i % 12) + is_even(i % 9) + (int)gcd(i + 12, 18);
}
