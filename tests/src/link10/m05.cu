// link10 unit 05: printf; part of the call chain m00 -> ... -> m09 -> m00.
#include <cstdio>
__device__ int m06_step(int v, int depth);
__device__ __noinline__ int m05_step(int v, int depth)
{
    int r = (printf("m05 %d\n", v), v + 1);
    return depth > 0 ? m06_step(r, depth - 1) : r;
}
