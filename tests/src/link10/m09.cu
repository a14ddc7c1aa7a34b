// link10 unit 09: inline; part of the call chain m00 -> ... -> m09 -> m00.
__device__ __forceinline__ int sq(int x) { return x * x; }
__device__ int m00_step(int v, int depth);
__device__ __noinline__ int m09_step(int v, int depth)
{
    int r = sq(v) + sq(v + 1);
    return depth > 0 ? m00_step(r, depth - 1) : r;
}
