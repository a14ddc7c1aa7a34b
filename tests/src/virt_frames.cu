// Virtual functions, recursion, function pointers, device malloc/printf/assert.
// ptxas -dc -lineinfo for sm_90 writes 24 frame entries here, and the FDE of
// kvirt gets a CIE pointer that lands on the *next* CIE (fixture
// virt_sm90_lineinfo.rdc.cubin; docs/spec-disagreements.md 7).
#include <cassert>
#include <cstdio>
namespace zoo {
struct Animal { __device__ virtual int legs() const = 0; __device__ virtual ~Animal() {} int id; };
struct Dog : Animal { __device__ int legs() const override { return 4; } };
struct Bird : Animal { __device__ int legs() const override { return 2; } float wing; };
union Bits { float f; unsigned u; struct { unsigned m : 23, e : 8, s : 1; } parts; };
enum class Color : short { Red = 1, Green = 2, Blue = -3 };
namespace { __device__ int hidden(int x) { return x * 3; } }
}
__device__ int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
typedef int (*binop)(int, int);
__device__ int add(int a, int b) { return a + b; }
__device__ int mul(int a, int b) { return a * b; }
__device__ binop table[2] = {add, mul};
__global__ void kvirt(int *out, int sel, float v) {
    zoo::Dog d; zoo::Bird b;
    zoo::Animal *a = sel ? (zoo::Animal *)&d : (zoo::Animal *)&b;
    zoo::Bits bits; bits.f = v;
    zoo::Color c = sel ? zoo::Color::Blue : zoo::Color::Red;
    assert(sel >= 0);
    int *heap = (int *)malloc(16 * sizeof(int));
    for (int i = 0; i < 16; i++) heap[i] = i;
    out[threadIdx.x] = a->legs() + fact(sel) + table[sel & 1](3, 4) + bits.parts.e + (int)c + zoo::hidden(heap[sel & 15]);
    free(heap);
    printf("%d %f\n", out[threadIdx.x], v);
}
