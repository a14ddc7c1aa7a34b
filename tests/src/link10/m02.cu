// link10 unit 02: recursion; part of the call chain m00 -> ... -> m09 -> m00.
__device__ __noinline__ int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
__device__ int m03_step(int v, int depth);
__device__ __noinline__ int m02_step(int v, int depth)
{
    int r = fact(v & 7);
    return depth > 0 ? m03_step(r, depth - 1) : r;
}
