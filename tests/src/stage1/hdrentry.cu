// header callees placed in kernels; smoothstep() is entered on line 4 of the header, the line of the kernel row before it: the entry writes no row, the repeat goes out alone after a lone advance (rule 5)
#include "hdrentry.cuh"
__device__ float g(float x) { return smoothstep(0, 2, x) + fbm(x, 2); }
__global__ void a(float *p) { p[threadIdx.x] = g(p[threadIdx.x]); }
__global__ void b(float *p) { p[threadIdx.x] = smoothstep(1, 3, p[threadIdx.x]); }
__global__ void c(float *p) { p[threadIdx.x] = lerp(p[0], p[1], fbm(p[threadIdx.x], 5)); }
