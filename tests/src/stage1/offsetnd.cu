// An N-d strided offset: offset<D>() recurses on one line (every level's
// .loc is 1 3 77, inlined at the one before).  ptxas -O1..-O3 writes the
// context rows one at a time, each when the next .loc inlined in the
// deferred one comes, however many same-line .locs that only select a
// context stand between (rule 7 of docs/ptx-lines.md).
template <int D>
__device__ __forceinline__ long long offset(const int *idx, const long long *stride) { return idx[D - 1] * stride[D - 1] + offset<D - 1>(idx, stride); }
template <>
__device__ __forceinline__ long long offset<0>(const int *, const long long *) { return 0; }
__global__ void k(const float *x, float *y, const long long *stride, const int *idx, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[offset<4>(idx + 4 * i, stride)];
}
