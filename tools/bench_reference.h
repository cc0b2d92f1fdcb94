// Hand-written C++ loops for `mxla bench`: the same computations as the
// workloads, compiled separately with -O3 -march=native, as the anchors
// harness compiles its hand C++ (tools/CMakeLists.txt), each over a row range [begin, end) so the harness
// can split them across threads like the JIT's kernels. Also the
// STREAM-style bandwidth kernels.
#ifndef MXLA_TOOLS_BENCH_REFERENCE_H_
#define MXLA_TOOLS_BENCH_REFERENCE_H_

#include <cstdint>

namespace mxla::bench {

// out[i,j] = x[i,j] + b[j]; x is rows x cols.
void BiasAdd(const float* x, const float* b, float* out, int64_t cols,
             int64_t begin, int64_t end);
// out[i,j] = max(x[i,j] * s[j] + b[j], 0).
void BiasReluScale(const float* x, const float* s, const float* b, float* out,
                   int64_t cols, int64_t begin, int64_t end);
// out[i,j] = a[i] + c[j].
void Outer(const float* a, const float* c, float* out, int64_t cols,
           int64_t begin, int64_t end);
// out[i,j,k] = a[i,j] + b[k] for rows (i,j) in [begin, end).
void Compose3d(const float* a, const float* b, float* out, int64_t inner,
               int64_t begin, int64_t end);
// Row softmax: out[i,:] = exp(x[i,:] - max) / sum(exp(x[i,:] - max)), as
// the fastest hand C++ of ../shared/anchors does it (bench_softmax.cc,
// -ffast-math): glibc's vector expf, reductions in any order, and a multiply
// by the reciprocal of the sum.
void SoftmaxRows(const float* x, float* out, int64_t cols, int64_t begin,
                 int64_t end);
// out[i,j] = x[i,j] * exp(v[j]): exp(v) computed once per call into a
// scratch row (what fusion's expensive-producer rule makes the JIT do).
void ScaleByExp(const float* x, const float* v, float* out, int64_t cols,
                int64_t begin, int64_t end);
// min(max(((a*b + c)*a - b) / (c*c + 1), 0.5*b), a) over [begin, end).
void Chain10(const float* a, const float* b, const float* c, float* out,
             int64_t begin, int64_t end);

// out[j] = sum_i x[i,j] for the columns j in [begin, end); x is rows x
// cols. Rows in order, so the loop vectorizes across columns.
void ColumnSum(const float* x, float* out, int64_t rows, int64_t cols,
               int64_t begin, int64_t end);
// *out = sum of x[0, n) with 16 independent accumulators (vectorizes without
// fast-math), on one thread.
void Sum(const float* x, float* out, int64_t n);
// Rows [begin, end) of out[m,n] = a[m,k] @ b[k,n]: the i-k-j loop, whose
// inner loop over a row of b vectorizes.
void Matmul(const float* a, const float* b, float* out, int64_t k, int64_t n,
            int64_t begin, int64_t end);
// Rows [begin, end) of softmax_rows(scale * q[h] @ k[h]^T), row r being
// row r % s of head r / s; q and k are [heads, s, d]. Each row's scores go
// to `out`, then the row softmax of SoftmaxRows (-ffast-math, same file).
void AttentionRows(const float* q, const float* k, float* out, int64_t s,
                   int64_t d, float scale, int64_t begin, int64_t end);
// STREAM kernels over [begin, end).
void StreamCopy(const float* a, float* c, int64_t begin, int64_t end);
void StreamTriad(const float* b, const float* c, float* a, float s,
                 int64_t begin, int64_t end);
void StreamFill(float* a, float s, int64_t begin, int64_t end);
// Triad with non-temporal (cache-bypassing) stores.
void StreamTriadNonTemporal(const float* b, const float* c, float* a, float s,
                            int64_t begin, int64_t end);
// Fill with non-temporal stores: the write-only ceiling for W3 and W4.
void StreamFillNonTemporal(float* a, float s, int64_t begin, int64_t end);

}  // namespace mxla::bench

#endif  // MXLA_TOOLS_BENCH_REFERENCE_H_
