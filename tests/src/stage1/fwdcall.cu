// kernels first, callees after (forward declarations); f() placed in k2 is entered in h() inlined: the repeat test of rule 5 looks before its context row
__device__ float f(float);
__device__ float g(float, int);
__global__ void k1(float *p) { p[threadIdx.x] = f(p[threadIdx.x]); }
__global__ void k2(float *p, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) s += g(p[i], i);
  p[threadIdx.x] = s;
}
__device__ __forceinline__ float h(float x) { return x * x + 1.f; }
__device__ __noinline__ float f(float x) {
  float y = h(x);
  return y / (1.f + h(y));
}
__device__ __noinline__ float g(float x, int i) {
  if (i & 1)
    return f(x) * i;
  return h(x) - i;
}
