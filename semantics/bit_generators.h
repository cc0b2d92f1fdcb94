// rng-bit-generator's numbers: XLA's counter-based generators, bit for bit
// as XLA:CPU computes them (its RngBitGeneratorExpander over
// ThreeFryBitGenerator and PhiloxBitGenerator).
//
//   ThreeFry-2x32, 20 rounds (Salmon et al., SC'11). State u64[2] = (key,
//     counter c). Bits of 64: element e (row-major) is the pair of words of
//     counter c + e, low word first. Narrower bits: the words of one
//     counter fill two neighbours along the split dimension (the first
//     dimension of even size, else the first largest; a scalar takes the
//     first word of counter c); counters run over the result with that
//     dimension halved (rounded up), and bits of 8 or 16 keep the low
//     bits of a 32-bit word. New state: c + the number of counters.
//   Philox-4x32, 10 rounds. State u64[3] = (key, counter low, counter
//     high) or u64[2] = (key, counter low) whose counter high is the key
//     (XLA reverses the pair). A counter gives four words: 32-bit bits take
//     them in turn (element e is word e mod 4 of counter + e / 4), 64-bit
//     bits take two pairs (element e is pair e mod 2 of counter + e / 2,
//     low word first). New state: the 128-bit counter plus the number of
//     counters, in the state's own shape.
//
// The interpreter evaluates this here; the JIT's expand-rng-bit-generators
// builds the same words from elementwise HLO with these constants.
#ifndef MXLA_SEMANTICS_BIT_GENERATORS_H_
#define MXLA_SEMANTICS_BIT_GENERATORS_H_

#include <array>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/hlo_opcode.h"
#include "ir/literal.h"

namespace mxla::semantics::bit_generators {

// ThreeFry-2x32's rotation distances, round r using kRotations[r % 8], and
// its key-schedule parity constant.
inline constexpr std::array<int, 8> kThreeFryRotations = {13, 15, 26, 6,
                                                          17, 29, 16, 24};
inline constexpr uint32_t kThreeFryParity = 0x1BD11BDA;
// Philox-4x32's multipliers and the Weyl steps added to the key each round.
inline constexpr uint32_t kPhiloxMultiplier0 = 0xD2511F53;
inline constexpr uint32_t kPhiloxMultiplier1 = 0xCD9E8D57;
inline constexpr uint32_t kPhiloxWeyl0 = 0x9E3779B9;
inline constexpr uint32_t kPhiloxWeyl1 = 0xBB67AE85;
inline constexpr int kPhiloxRounds = 10;

using Words2 = std::array<uint32_t, 2>;
using Words4 = std::array<uint32_t, 4>;

// The two 32-bit halves of x, low first, and back.
constexpr Words2 Split(uint64_t x) {
  return {static_cast<uint32_t>(x), static_cast<uint32_t>(x >> 32)};
}
constexpr uint64_t Join(uint32_t low, uint32_t high) {
  return uint64_t{low} | (uint64_t{high} << 32);
}

Words2 ThreeFry2x32(Words2 counter, Words2 key);
Words4 Philox4x32(Words4 counter, Words2 key);

// The dimension along which ThreeFry's narrow bits pair up: the first of
// even size, else the first largest; -1 for a scalar.
int64_t ThreeFrySplitDimension(absl::Span<const int64_t> dims);

// The algorithm rng_default stands for (XLA:CPU's choice).
constexpr RandomAlgorithm Resolve(RandomAlgorithm algorithm) {
  return algorithm == RandomAlgorithm::kDefault ? RandomAlgorithm::kPhilox
                                                : algorithm;
}

// The tuple (new state, bits) of `shape` that rng-bit-generator with
// `algorithm` computes from `state` (shapes checked by
// ShapeInference::CheckRngBitGenerator).
absl::StatusOr<Literal> Generate(RandomAlgorithm algorithm,
                                 const Literal& state, const Shape& shape);

}  // namespace mxla::semantics::bit_generators

#endif  // MXLA_SEMANTICS_BIT_GENERATORS_H_
