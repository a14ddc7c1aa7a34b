// #line directives: rows in a file the compiler was told about (Mercury: the 0x92 0 before a long-form row's set_file)
__device__ __forceinline__ int f1(int x) {
#line 100 "generated.cu"
  return x * 3 + 1;
}
#line 20 "hashline.cu"
__device__ __noinline__ int f2(int x) { return f1(x) ^ f1(x >> 1); }
__global__ void k(int *p) { p[threadIdx.x] = f2(p[threadIdx.x]) + f1(threadIdx.x); }
