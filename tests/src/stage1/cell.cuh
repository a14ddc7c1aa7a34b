#pragma once
struct Cell {
  float v, w;
  __device__ __forceinline__ float sum() const { return v + w; }
  __device__ __forceinline__ float diff() const { return v - w; }
  __device__ __forceinline__ void scale(float s) { v *= s; w *= s; }
  __device__ __noinline__ float prod() const { return sum() * diff(); }
};
// round 25 of docs/ptx-lines.md: a struct's inline methods on lines 4..6, its noinline method on line 7
