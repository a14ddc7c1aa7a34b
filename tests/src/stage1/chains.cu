// Stage-1 program: virtual calls and a variadic template chain of lambdas
// (the chain recurses on one line: .loc F L C, ..., inlined_at F L C).
struct Shape { __device__ virtual float area() const = 0; __device__ virtual ~Shape() {} };
struct Sq : Shape { float s; __device__ Sq(float v) : s(v) {} __device__ float area() const override { return s * s; } };
struct Ci : Shape { float r; __device__ Ci(float v) : r(v) {} __device__ float area() const override { return 3.14f * r * r; } };
template <typename F, typename... R> struct Chain {
    __device__ static float apply(float x, F f, R... r) { return Chain<R...>::apply(f(x), r...); }
};
template <typename F> struct Chain<F> { __device__ static float apply(float x, F f) { return f(x); } };
template <typename... Fs> __device__ float chain(float x, Fs... fs) { return Chain<Fs...>::apply(x, fs...); }
__global__ void shapes(const float *v, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Sq a(v[i]); Ci b(v[i] * 0.5f);
    const Shape *s[2] = {&a, &b};
    float t = 0;
    for (int k = 0; k < 2; k++) t += s[k]->area();
    auto f1 = [](float x) { return x + 1; };
    auto f2 = [=](float x) { return x * t; };
    auto f3 = [](float x) { return x > 4 ? 4 : x; };
    out[i] = chain(t, f1, f2, f3, f1) + chain(v[i], f3, f3);
}
