// Dynamic parallelism (a kernel launching kernels): nvlink links it with
// libcudadevrt.a, whose member it pulls in by the __cudaCDP2* references.
#include <cstdio>
__device__ int depth_hits[8];
__global__ void child(int *p, int d) {
    int i = threadIdx.x;
    atomicAdd(&depth_hits[d], 1);
    if (i == 0 && d < 3) child<<<1, 4>>>(p, d + 1);
    p[i] += d;
}
__global__ void parent(int *p) {
    if (threadIdx.x == 0) child<<<1, 8>>>(p, 0);
    printf("parent %d\n", threadIdx.x);
}
