#pragma once
__device__ __forceinline__ float mix(float a, float b, float t) { return a + (b - a) * t; }
__device__ __forceinline__ float sat(float x) { return x < 0.f ? 0.f : x > 1.f ? 1.f : x; }
__device__ __forceinline__ float smooth(float x) { float t = sat(x); return t * t * (3.f - 2.f * t); }
__device__ __forceinline__ unsigned hash(unsigned x) { x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; return x; }
__device__ __forceinline__ float rnd(unsigned s) { return (hash(s) & 0xffff) / 65536.f; }
