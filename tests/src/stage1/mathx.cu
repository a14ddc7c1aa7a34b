#include "mathx.cuh"
__global__ void specials(const double *x, double *y, float *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = x[i];
    y[i] = softplus(v) + logistic(v) * gauss(v, 0.5);
    float s, c;
    sincosf((float)v, &s, &c);
    z[i] = erff(s) + lgammaf(1.f + fabsf(c)) + exp2f(s * c);
}
