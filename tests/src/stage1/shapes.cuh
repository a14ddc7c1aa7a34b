#pragma once
struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual ~Shape() {}
};
struct Sq : Shape {
  float s;
  __device__ Sq(float v) : s(v) {}
  __device__ float area() const override { return s * s; }
};
struct Ci : Shape {
  float r;
  __device__ Ci(float v) : r(v) {}
  __device__ float area() const override { return 3.14159f * r * r; }
};
