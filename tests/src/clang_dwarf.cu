// Device code for clang (no CUDA headers: clang 14 cannot parse CUDA 13's).
// clang -x cuda -nocudainc -nocudalib --cuda-gpu-arch=sm_75 --cuda-device-only
//       -g --cuda-noopt-device-debug -S clang_dwarf.cu -o clang_dwarf.ptx
// ptxas -arch=sm_75 -g clang_dwarf.ptx -o clang14_sm75_g.cubin
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
__device__ __attribute__((noinline)) float sq(float x) { return x * x; }
__device__ inline float add1(float x) { return sq(x) + 1.0f; }
__global__ void k(float *a, int n) { for (int j = 0; j < n; j++) a[j] = add1(a[j]); }
