// link10 unit 06: fnptr; part of the call chain m00 -> ... -> m09 -> m00.
__device__ int inc(int x) { return x + 1; }
__device__ int dec(int x) { return x - 1; }
__device__ int (*ops[2])(int) = {inc, dec};
__device__ int m07_step(int v, int depth);
__device__ __noinline__ int m06_step(int v, int depth)
{
    int r = ops[v & 1](v);
    return depth > 0 ? m07_step(r, depth - 1) : r;
}
