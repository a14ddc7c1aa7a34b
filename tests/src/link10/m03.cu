// link10 unit 03: union; part of the call chain m00 -> ... -> m09 -> m00.
union bits { float f; unsigned u; struct { unsigned lo : 16, hi : 16; } h; };
__device__ int m04_step(int v, int depth);
__device__ __noinline__ int m03_step(int v, int depth)
{
    int r = ({ bits b; b.f = (float)v; (int)(b.h.lo ^ b.h.hi); });
    return depth > 0 ? m04_step(r, depth - 1) : r;
}
