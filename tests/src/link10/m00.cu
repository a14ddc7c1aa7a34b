// link10 unit 00: templates; part of the call chain m00 -> ... -> m09 -> m00.
template <typename T> __device__ __noinline__ T twice(T v) { return v + v; }
__device__ int m01_step(int v, int depth);
__device__ __noinline__ int m00_step(int v, int depth)
{
    int r = twice<int>(v) + (int)twice<float>(0.5f * v);
    return depth > 0 ? m01_step(r, depth - 1) : r;
}
__global__ void chain_kernel(int *out, int depth)
{
    out[threadIdx.x] = m00_step(out[threadIdx.x], depth);
}
