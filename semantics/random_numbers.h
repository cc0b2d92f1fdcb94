// rng's numbers, as mxla defines them. XLA leaves them to the backend (its
// CPU backend draws them from a state that advances on every run); mxla
// makes them a pure function of the instruction and the element, so the
// interpreter and the JIT agree and a module gives the same numbers on
// every run and in every loop iteration:
//
//   key          FNV-1a (64 bits) of the rng instruction's name
//   bits(i, s)   SplitMix64's output function of key + (2i + s + 1) * golden
//                (mod 2^64), for element i (row-major) and stream s in {0, 1}
//   unit(x)      (x >> 11) * 2^-53, in [0, 1)
//
//   rng_uniform, float T:   t = T(a + (b - a) * unit(bits(i, 0))), computed
//                           in f64; a where t >= b (rounding reached b, or
//                           b <= a)
//   rng_uniform, integers and pred:  a + bits(i, 0) mod (b - a), in 64 bits;
//                           a where b <= a
//   rng_normal, float T:    T(mu + sigma * (r * cos(2 pi u1))) in f64, with
//                           r = sqrt(-2 log(1 - u0)), u_s = unit(bits(i, s))
//                           (Box-Muller)
//
// The interpreter evaluates this here; the JIT's expand-rngs pass builds
// the same computation from HLO ops with these constants.
#ifndef MXLA_SEMANTICS_RANDOM_NUMBERS_H_
#define MXLA_SEMANTICS_RANDOM_NUMBERS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/hlo_opcode.h"
#include "ir/literal.h"

namespace mxla::semantics::random {

inline constexpr uint64_t kFnvOffset = 0xcbf29ce484222325u;
inline constexpr uint64_t kFnvPrime = 0x100000001b3u;
// The counter's step: 2^64 / golden ratio, odd.
inline constexpr uint64_t kGolden = 0x9e3779b97f4a7c15u;
// SplitMix64's output function: x ^= x >> 30; x *= kMix0; x ^= x >> 27;
// x *= kMix1; x ^= x >> 31.
inline constexpr uint64_t kMix0 = 0xbf58476d1ce4e5b9u;
inline constexpr uint64_t kMix1 = 0x94d049bb133111ebu;
inline constexpr int kShift0 = 30;
inline constexpr int kShift1 = 27;
inline constexpr int kShift2 = 31;
// unit(x): the top 53 bits as a fraction.
inline constexpr int kUnitShift = 11;
inline constexpr double kUnitScale = 0x1p-53;
inline constexpr double kTwoPi = 6.283185307179586476925;

// The key of the rng instruction named `name`.
uint64_t NameKey(absl::string_view name);

constexpr uint64_t Bits(uint64_t key, uint64_t index, uint64_t stream) {
  uint64_t x = key + (2 * index + stream + 1) * kGolden;
  x = (x ^ (x >> kShift0)) * kMix0;
  x = (x ^ (x >> kShift1)) * kMix1;
  return x ^ (x >> kShift2);
}

constexpr double Unit(uint64_t bits) {
  return static_cast<double>(bits >> kUnitShift) * kUnitScale;
}

// The array of `shape` that an rng of `distribution` with key `key` and
// scalar parameters `a` and `b` (of shape's element type) computes.
absl::StatusOr<Literal> Generate(RandomDistribution distribution, uint64_t key,
                                 const Literal& a, const Literal& b,
                                 const Shape& shape);

}  // namespace mxla::semantics::random

#endif  // MXLA_SEMANTICS_RANDOM_NUMBERS_H_
