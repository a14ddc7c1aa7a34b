// many small noinline functions, each entered at an inlined call; -rdc: each sequence starts at an inlined .loc
__device__ __forceinline__ int mix(int a, int b) { return (a * 31) ^ b; }
#define N(i) __device__ __noinline__ int n##i(int x) { return mix(x, i) + mix(x + i, x); }
N(0) N(1) N(2) N(3) N(4) N(5)
__global__ void k(int *p) {
  int x = p[threadIdx.x];
  x = n0(x); x = n1(x); x = n2(x);
  x = n3(x) + n4(x) + n5(x);
  p[threadIdx.x] = x;
}
