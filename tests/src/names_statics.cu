// Name-index cases: function-local statics (extern "C", template, namespace,
// file-static and lambda owners; external template statics stay unqualified).
extern "C" __device__ __noinline__ int cfun(int a) { static __device__ int hits; hits += a; return hits; }
template <typename T> struct acc { __device__ __noinline__ T push(T v) { static __device__ T last; last = v; return last; } };
namespace ns { __device__ __noinline__ int nsf(int a) { static __device__ int nshits; return nshits += a; } }
static __device__ __noinline__ int sfun(int a) { static __device__ int shits; return shits += a; }
__device__ int dup_name;
namespace other { __device__ int dup_name; }
__global__ void kk(int *o)
{
    auto lam = [] (int x) { static __device__ int lhits; return lhits += x; };
    acc<int> ai; acc<float> af;
    enum local_e { LA, LB } le = (local_e)(o[0] & 1);
    o[0] = cfun(o[1]) + ai.push(o[2]) + (int)af.push(1.f) + ns::nsf(2) + sfun(3) + lam(4) + dup_name + other::dup_name + le;
}
