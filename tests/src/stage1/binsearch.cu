// A binary search unrolled by templates: Bin<LO,HI>::find() recurses on
// one line, on two branches.  ptxas -O1..-O3 keeps a deferred .loc through
// the .locs of the other branch that only select a context, and through
// its own return (rule 7 of docs/ptx-lines.md).
__constant__ float edges[16];
template <int LO, int HI>
struct Bin { __device__ static int find(float x) { constexpr int MID = (LO + HI) / 2; return x < edges[MID] ? Bin<LO, MID>::find(x) : Bin<MID, HI>::find(x); } };
template <int LO>
struct Bin<LO, LO + 1> { __device__ static int find(float) { return LO; } };
__global__ void k(const float *x, int *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = Bin<0, 16>::find(x[i]);
}
