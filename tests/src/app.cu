// Host program for cudwarf's fatbin tests: device code embedded in an
// executable.
#include <cstdio>

__device__ __forceinline__ float scale(float v, float s) { return v * s + 1.0f; }

__global__ void saxpy_like(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = scale(x[i], a) + y[i];
}

int main()
{
    float *x = nullptr, *y = nullptr;
    if (cudaMalloc(&x, 64 * sizeof(float)) != cudaSuccess || cudaMalloc(&y, 64 * sizeof(float)) != cudaSuccess) {
        std::printf("no device\n");
        return 0;
    }
    saxpy_like<<<1, 64>>>(2.0f, x, y, 64);
    cudaDeviceSynchronize();
    cudaFree(x);
    cudaFree(y);
    return 0;
}
