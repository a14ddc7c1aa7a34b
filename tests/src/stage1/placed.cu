// noinline callees ptxas places in a kernel, entered at an inlined .loc (a1 in a2, a3 in a4): the entry writes its context rows, then its row
__device__ __forceinline__ int a0(int x) { return x ^ (x >> 3); }
__device__ __forceinline__ int a1(int x) { return a0(x) + a0(x + 7); }
__device__ __noinline__ int a2(int x) { return a1(x) * a1(x - 1); }
__device__ __forceinline__ int a3(int x) { return a2(x) + a1(x); }
__device__ __noinline__ int a4(int x) { int s = 0; for (int i = 0; i < x % 5; ++i) s += a3(x + i); return s; }
__global__ void k(int *p) { p[threadIdx.x] = a4(p[threadIdx.x]) + a3(p[threadIdx.x + 32]); }
__global__ void k2(int *p) { p[threadIdx.x] = a1(p[threadIdx.x]); }
