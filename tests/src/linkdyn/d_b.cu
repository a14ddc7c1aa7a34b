// linkdyn: a second unit with its own dynamic array (see d_a.cu).
extern __shared__ char dyn_b[];
__global__ void k_b(int *o)
{
    __shared__ int sb[7];
    sb[threadIdx.x % 7] = 1;
    dyn_b[threadIdx.x] = 2;
    __syncthreads();
    o[threadIdx.x] = dyn_b[1] + sb[2];
}
