// Name-index cases: types flattened to unit level, local types, forward
// declarations, typedef-named anonymous structs, overloads, scoped enums.
struct fwd;                       // only ever used through a pointer
struct outer { struct inner_t { int a; } in; int b; };
class widget { public: int id; __device__ __noinline__ int get() const { return id; } private: float w; };
typedef struct { int anon_a; } anon_t;
enum class mode : short { fast, slow };
enum { LOOSE_A = 1, LOOSE_B };
using alias_t = widget;
template <typename T> struct pair_t { T first, second; };
__device__ pair_t<int> g_pair;
__device__ pair_t<double> g_dpair;
__device__ fwd *g_fwd;
__device__ alias_t g_widget;
__device__ __noinline__ int ovl(int a) { return a + 1; }
__device__ __noinline__ int ovl(float a) { return (int)a + 2; }
__device__ __noinline__ int ovl(double a) { return (int)a + 3; }
__global__ void k2(int *o, mode m)
{
    struct local_s { int q; } ls{3};
    typedef int local_int;
    local_int li = o[0];
    outer ou{{1}, 2};
    anon_t an{4};
    static __shared__ double sd[3];
    { static __shared__ int deep[2]; deep[0] = li; sd[1] = deep[1]; }
    o[1] = ls.q + ou.in.a + an.anon_a + (int)m + LOOSE_B + g_widget.get() + g_pair.first + (int)g_dpair.second
         + (g_fwd != nullptr) + ovl(2) + ovl(2.f) + ovl(2.0) + (int)sd[0];
}
__global__ void k1(int *o) { static __shared__ int deep[2]; deep[1] = o[0]; o[0] = ovl(o[1]) + deep[0]; }
