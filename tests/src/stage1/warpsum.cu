// A warp reduction unrolled by template recursion on one line, each level
// inlining __shfl_down_sync from the CUDA headers.  In the tables that do
// the work at once (sm_75/80 .debug_line, Mercury), the 0x90 of the
// shuffle's row comes before its set_file where the level's context row is
// shared by the next level's .loc (rule 3 of docs/ptx-lines.md).
template <int OFF> struct WarpSum { __device__ __forceinline__ static float run(float v) { return WarpSum<OFF / 2>::run(v + __shfl_down_sync(0xffffffffu, v, OFF)); } };
template <> struct WarpSum<0> { __device__ __forceinline__ static float run(float v) { return v; } };
__global__ void rowsum(const float *a, float *out, int cols)
{
    int row = blockIdx.x, lane = threadIdx.x;
    float s = 0.f;
    for (int c = lane; c < cols; c += 32) s += a[row * cols + c];
    s = WarpSum<16>::run(s);
    if (lane == 0) out[row] = s;
}
