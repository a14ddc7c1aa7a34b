__device__ __forceinline__ float hdr_scale(float x, float s)
{
    float y = x * s;
    if (y > 10.0f)
        y = sqrtf(y);
    return y;
}
