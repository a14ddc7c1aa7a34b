// shape: device lambdas: captured by value and reference, generic, nested, passed to a template and returned
template <class F> __device__ __forceinline__ float apply3(F f, float x) { return f(f(f(x))); }

template <class F, class G> __device__ __forceinline__ auto compose(F f, G g)
{
    return [=](float x) { return f(g(x)); };
}

__global__ void lambda_kernel(const float *in, float *out, int n, float scale)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    auto mul = [scale](float x) { return x * scale; };
    auto add = [](auto x) { return x + decltype(x)(1); };
    auto both = compose(mul, add);
    float acc = 0.f;
    auto accumulate = [&acc](float v) { acc += v; };
    accumulate(apply3(both, in[i]));
    accumulate(apply3([&](float x) { return mul(x) - add(x); }, in[i]));
    auto nested = [&](float x) {
        auto inner = [&](float y) { return both(y) * mul(x); };
        return inner(x) + inner(x + 1.f);
    };
    accumulate(nested(in[i]));
    out[i] = acc + add(2);
}

struct Holder {
    float k;
    __device__ auto make() const { return [k = k](float x) { return x * k; }; }
};

__global__ void lambda_member(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    Holder h{1.5f};
    auto f = h.make();
    out[i] = apply3(f, out[i]) + apply3(compose(f, h.make()), 1.f);
}
