#pragma once
__device__ __forceinline__ double logistic(double x) { return 1.0 / (1.0 + exp(-x)); }
__device__ __forceinline__ double softplus(double x) { return x > 20 ? x : log1p(exp(x)); }
__device__ __forceinline__ double gauss(double x, double s)
{
    double z = x / s;
    return exp(-0.5 * z * z) / (s * 2.5066282746310002);
}
