// resources: static, none and dynamic (extern) __shared__ (tests/ref/check_resources.py)
__global__ void s40(int *a) { __shared__ int x[10]; x[threadIdx.x % 10] = a[threadIdx.x]; __syncthreads(); a[threadIdx.x] = x[(threadIdx.x + 1) % 10]; }
__global__ void s0(int *a) { a[threadIdx.x] = 1; }
extern __shared__ int dyn[];
__global__ void sdyn(int *a) { dyn[threadIdx.x] = a[threadIdx.x]; __syncthreads(); a[threadIdx.x] = dyn[threadIdx.x ^ 1]; }
