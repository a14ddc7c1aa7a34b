// link10 unit 01: shared; part of the call chain m00 -> ... -> m09 -> m00.
__device__ int m02_step(int v, int depth);
__device__ __noinline__ int m01_step(int v, int depth)
{
    int r = ({ __shared__ int buf[32]; buf[threadIdx.x & 31] = v; __syncthreads(); buf[(threadIdx.x + 1) & 31]; });
    return depth > 0 ? m02_step(r, depth - 1) : r;
}
