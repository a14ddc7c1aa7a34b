// C++ constructs whose debug names matter: namespaces, classes, templates,
// static members and locals, enums, typedefs, unions, anonymous namespaces.
#include <cstdint>
namespace geo {
struct vec2 { float x, y; __device__ float dot(const vec2 &o) const { return x * o.x + y * o.y; } };
enum class axis : int { X, Y };
typedef vec2 point;
__device__ int counter;
namespace inner {
template <typename T> struct box { T lo, hi; __device__ T span() const { return hi - lo; } static constexpr int width = 2; };
__device__ float area(const box<float> &b) { return b.span() * b.span(); }
}
}
namespace {
__device__ int hidden_count;
__device__ __noinline__ int bump(int v) { static __shared__ int pool[4]; pool[v & 3] += v; return pool[0]; }
}
union bits { float f; uint32_t u; };
enum color { RED, GREEN = 5, BLUE };
struct counter_t { int n; static constexpr int limit = 9; __device__ __noinline__ void add(int v); };
__device__ __noinline__ void counter_t::add(int v) { static __device__ int calls; calls++; n += v; n = n > limit ? limit : n; }
template <int N> __device__ __noinline__ int fold(const int *p) { int s = 0; for (int i = 0; i < N; i++) s += p[i]; return s; }
extern "C" __device__ __noinline__ int plain_c(int a) { return a * 3; }
static __device__ __noinline__ int file_static(int a) { return a + 1; }
__constant__ geo::point origin;
__global__ void kernel(float *out, const int *in, int n)
{
    __shared__ geo::inner::box<float> boxes[2];
    counter_t c{0};
    c.add(in[0]);
    bits b; b.f = out[0];
    color col = (color)(b.u & 7);
    geo::vec2 v{1.f, 2.f};
    boxes[threadIdx.x & 1].lo = v.dot(origin);
    out[1] = geo::inner::area(boxes[0]) + fold<4>(in) + fold<2>(in) + plain_c(n) + file_static(n) + bump(n) + (int)col
        + geo::counter + hidden_count + (int)geo::axis::Y + geo::inner::box<float>::width;
}
