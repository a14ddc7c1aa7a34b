#include "althdr_b.cuh"
// recursion alternating between two headers on the same line numbers
// (round 58 of docs/ptx-lines.md: rule 15, a dead 0x90 in its own file)
__global__ void k(const float *x, float *y, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) y[t] = Aalt<6>::f(x + 8 * t) + Balt<5>::f(x + 8 * t);
}
