// shape: #line directives: a function renumbered, one moved to another file name, back to this file by its bare name, a jump inside a kernel
__device__ __forceinline__ float base_op(float x) { return x * 3.f - 1.f; }

#line 500
__device__ __forceinline__ float moved(float x)
{
    return base_op(x) + base_op(x * 0.5f);
}

#line 20 "virtual_header.cuh"
__device__ __forceinline__ float elsewhere(float x)
{
    float y = moved(x);
    return y * y;
}
#line 17 "lineset.cu"

__global__ void line_kernel(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i];
#line 900
    x = elsewhere(x) + moved(x);
    out[i] = x + base_op(x);
}

#line 40 "lineset.cu"
__global__ void line_kernel2(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
#line 7
        out[i] = moved(out[i]) * elsewhere(out[i]);
}
