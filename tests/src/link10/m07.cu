// link10 unit 07: class; part of the call chain m00 -> ... -> m09 -> m00.
class acc { int s; public: __device__ acc() : s(0) {} __device__ void add(int x) { s += x; } __device__ int get() const { return s; } };
__device__ int m08_step(int v, int depth);
__device__ __noinline__ int m07_step(int v, int depth)
{
    int r = ({ acc a; a.add(v); a.add(3); a.get(); });
    return depth > 0 ? m08_step(r, depth - 1) : r;
}
