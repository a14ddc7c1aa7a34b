// link3: a force-inlined helper every unit uses, so each unit's .debug_str
// names it (what --dedup-strings merges) and its line rows are inlined.
#pragma once
__device__ __forceinline__ int l3_mix(int x)
{
    x ^= x >> 3;
    return x * 2654435761u;
}
