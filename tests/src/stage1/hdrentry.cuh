#pragma once
__device__ __forceinline__ float lerp(float a, float b, float t) { return a + (b - a) * t; }
__device__ __noinline__ float smoothstep(float e0, float e1, float x) {
  float t = (x - e0) / (e1 - e0);
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  return t * t * (3 - 2 * t);
}
__device__ __noinline__ float fbm(float x, int oct) {
  float s = 0, a = 0.5f;
  for (int i = 0; i < oct; ++i) {
    s += a * __sinf(x);
    x *= 2.01f;
    a *= 0.5f;
  }
  return s;
}
