// round03: a 3-vector template whose operators inline the scalar helpers
#pragma once
#include "r3_base.cuh"
template <class T> struct V3 {
    T x, y, z;
    __device__ __forceinline__ V3 operator+(V3 o) const { return {x + o.x, y + o.y, z + o.z}; }
    __device__ __forceinline__ V3 operator-(V3 o) const { return {x - o.x, y - o.y, z - o.z}; }
    __device__ __forceinline__ V3 operator*(T s) const { return {x * s, y * s, z * s}; }
    __device__ __forceinline__ T dot(V3 o) const { return r3_mad(x, o.x, r3_mad(y, o.y, z * o.z)); }
};
template <class T> __device__ __forceinline__ T norm2(V3<T> v) { return v.dot(v); }
template <class T> __device__ __forceinline__ V3<T> unit(V3<T> v) { return v * (T)r3_rsq((float)norm2(v)); }
