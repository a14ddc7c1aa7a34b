// round03: scalar helpers at the bottom of the round's header chains
#pragma once
__device__ __forceinline__ float r3_rsq(float x) { return rsqrtf(x + 1e-6f); }
__device__ __forceinline__ float r3_mad(float a, float b, float c) { return a * b + c; }
__device__ __forceinline__ float r3_clip(float x) { return fminf(fmaxf(x, -1.f), 1.f); }
__device__ __forceinline__ float r3_warp_sum(float v)
{
    for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
