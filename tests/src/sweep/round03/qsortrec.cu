// shape: a recursive device quicksort on a local array with a lambda comparator, a recursive max-depth helper, warp votes
template <class Less> __device__ void qsort_rec(float *a, int lo, int hi, Less less, int depth, int *maxd)
{
    if (lo >= hi)
        return;
    *maxd = depth > *maxd ? depth : *maxd;
    float p = a[(lo + hi) / 2];
    int i = lo, j = hi;
    while (i <= j) {
        while (less(a[i], p)) ++i;
        while (less(p, a[j])) --j;
        if (i <= j) { float t = a[i]; a[i] = a[j]; a[j] = t; ++i; --j; }
    }
    qsort_rec(a, lo, j, less, depth + 1, maxd);
    qsort_rec(a, i, hi, less, depth + 1, maxd);
}

__device__ int bits(unsigned x) { return x ? (int)(x & 1) + bits(x >> 1) : 0; }

__global__ void sort_local(const float *in, float *out, int *depth, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a[12];
    for (int k = 0; k < 12; ++k)
        a[k] = in[(i * 12 + k) % n];
    int d = 0;
    qsort_rec(a, 0, 11, [](float x, float y) { return x < y; }, 0, &d);
    unsigned up = __ballot_sync(__activemask(), a[0] > 0.f);
    for (int k = 0; k < 12; ++k)
        out[i * 12 + k] = a[k];
    depth[i] = d + bits(up);
}
