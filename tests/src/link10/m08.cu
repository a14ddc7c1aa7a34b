// link10 unit 08: atomics; part of the call chain m00 -> ... -> m09 -> m00.
__device__ int counter;
__device__ int m09_step(int v, int depth);
__device__ __noinline__ int m08_step(int v, int depth)
{
    int r = atomicAdd(&counter, v);
    return depth > 0 ? m09_step(r, depth - 1) : r;
}
