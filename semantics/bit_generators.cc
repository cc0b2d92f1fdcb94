#include "semantics/bit_generators.h"

#include <bit>
#include <type_traits>
#include <vector>

#include "absl/algorithm/container.h"
#include "ir/primitive_type.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "semantics/index_walk.h"
#include "semantics/scalar_semantics.h"
#include "shape_inference/shape_inference.h"

namespace mxla::semantics::bit_generators {

Words2 ThreeFry2x32(Words2 counter, Words2 key) {
  const std::array<uint32_t, 3> schedule = {
      key[0], key[1], kThreeFryParity ^ key[0] ^ key[1]};
  Words2 x = {counter[0] + schedule[0], counter[1] + schedule[1]};
  // Five groups of four rounds, each followed by a key injection.
  for (uint32_t group = 0; group < 5; ++group) {
    for (int r = 0; r < 4; ++r) {
      x[0] += x[1];
      x[1] = std::rotl(x[1], kThreeFryRotations[(group % 2) * 4 + r]);
      x[1] ^= x[0];
    }
    x[0] += schedule[(group + 1) % 3];
    x[1] += schedule[(group + 2) % 3] + group + 1;
  }
  return x;
}

Words4 Philox4x32(Words4 counter, Words2 key) {
  for (int round = 0; round < kPhiloxRounds; ++round) {
    const uint64_t product0 = uint64_t{counter[0]} * kPhiloxMultiplier0;
    const uint64_t product1 = uint64_t{counter[2]} * kPhiloxMultiplier1;
    counter = {static_cast<uint32_t>(product1 >> 32) ^ counter[1] ^ key[0],
               static_cast<uint32_t>(product1),
               static_cast<uint32_t>(product0 >> 32) ^ counter[3] ^ key[1],
               static_cast<uint32_t>(product0)};
    key = {key[0] + kPhiloxWeyl0, key[1] + kPhiloxWeyl1};
  }
  return counter;
}

int64_t ThreeFrySplitDimension(absl::Span<const int64_t> dims) {
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] % 2 == 0) return static_cast<int64_t>(d);
  }
  int64_t largest = dims.empty() ? -1 : 0;
  for (size_t d = 1; d < dims.size(); ++d) {
    if (dims[d] > dims[largest]) largest = static_cast<int64_t>(d);
  }
  return largest;
}

namespace {

// The raw 64-bit value of every element, and the new state.
struct Drawn {
  std::vector<uint64_t> values;
  std::vector<uint64_t> state;
};

Drawn ThreeFry(absl::Span<const uint64_t> state, const Shape& bits) {
  const Words2 key = Split(state[0]);
  const uint64_t counter = state[1];
  const int64_t count = ShapeUtil::ElementsIn(bits);
  Drawn drawn;
  drawn.values.resize(count);
  if (primitive_util::BitWidth(bits.element_type()) == 64) {
    for (int64_t e = 0; e < count; ++e) {
      const Words2 w = ThreeFry2x32(Split(counter + e), key);
      drawn.values[e] = Join(w[0], w[1]);
    }
    drawn.state = {state[0], counter + static_cast<uint64_t>(count)};
    return drawn;
  }
  const int64_t split = ThreeFrySplitDimension(bits.dimensions());
  if (split < 0) {
    drawn.values[0] = ThreeFry2x32(Split(counter), key)[0];
    drawn.state = {state[0], counter + 1};
    return drawn;
  }
  std::vector<int64_t> halved(bits.dimensions().begin(), bits.dimensions().end());
  halved[split] = (halved[split] + 1) / 2;
  const std::vector<int64_t> strides = RowMajorStrides(halved);
  std::vector<int64_t> index(bits.rank(), 0);
  for (int64_t e = 0; e < count; ++e, NextIndex(bits.dimensions(), index)) {
    uint64_t offset = 0;
    for (int64_t d = 0; d < bits.rank(); ++d) {
      offset += (d == split ? index[d] / 2 : index[d]) * strides[d];
    }
    drawn.values[e] = ThreeFry2x32(Split(counter + offset), key)[index[split] % 2];
  }
  drawn.state = {state[0],
                 counter + static_cast<uint64_t>(ShapeUtil::ElementsIn(
                               ShapeUtil::MakeShape(U64, halved)))};
  return drawn;
}

Drawn Philox(absl::Span<const uint64_t> state, const Shape& bits) {
  const Words2 key = Split(state[0]);
  // A u64[2] state is (key, low) with the key as the counter's high half.
  const uint64_t low = state[1];
  const uint64_t high = state.size() >= 3 ? state[2] : state[0];
  const int64_t count = ShapeUtil::ElementsIn(bits);
  const bool wide = primitive_util::BitWidth(bits.element_type()) == 64;
  const int64_t per_counter = wide ? 2 : 4;
  auto words_of = [&](uint64_t step) {
    const uint64_t l = low + step;
    const uint64_t h = high + (l < low ? 1 : 0);
    const Words2 lw = Split(l);
    const Words2 hw = Split(h);
    return Philox4x32({lw[0], lw[1], hw[0], hw[1]}, key);
  };
  Drawn drawn;
  drawn.values.resize(count);
  for (int64_t e = 0; e < count; ++e) {
    const Words4 w = words_of(static_cast<uint64_t>(e / per_counter));
    const int64_t slot = e % per_counter;
    drawn.values[e] = wide ? Join(w[2 * slot], w[2 * slot + 1]) : w[slot];
  }
  const uint64_t counters = static_cast<uint64_t>(
      (count + per_counter - 1) / per_counter);
  const uint64_t new_low = low + counters;
  const uint64_t new_high = high + (new_low < low ? 1 : 0);
  drawn.state = state.size() >= 3
                    ? std::vector<uint64_t>{state[0], new_low, new_high}
                    : std::vector<uint64_t>{state[0], new_low};
  return drawn;
}

// The low bits of `value` as the unsigned type T (sub-byte ones too).
template <typename T>
T LowBits(uint64_t value) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(value);
  } else {
    return T(static_cast<int64_t>(value & ((uint64_t{1} << T::kBits) - 1)));
  }
}

}  // namespace

absl::StatusOr<Literal> Generate(RandomAlgorithm algorithm,
                                 const Literal& state, const Shape& shape) {
  RETURN_IF_ERROR(
      ShapeInference::CheckRngBitGenerator(algorithm, state.shape(), shape));
  const Shape& bits = shape.tuple_shapes(1);
  const absl::Span<const uint64_t> words = state.data<uint64_t>();
  const Drawn drawn = Resolve(algorithm) == RandomAlgorithm::kThreeFry
                          ? ThreeFry(words, bits)
                          : Philox(words, bits);
  Literal new_state(state.shape());
  absl::c_copy(drawn.state, new_state.data<uint64_t>().begin());
  Literal values(bits);
  primitive_util::ArrayTypeSwitch(bits.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr ((std::is_integral_v<T> && !std::is_same_v<T, bool>) ||
                  kIsSubByteInt<T>) {
      absl::Span<T> out = values.data<T>();
      for (size_t e = 0; e < out.size(); ++e) {
        out[e] = LowBits<T>(drawn.values[e]);
      }
    }
  });
  std::vector<Literal> elements;
  elements.push_back(std::move(new_state));
  elements.push_back(std::move(values));
  return LiteralUtil::MakeTuple(std::move(elements));
}

}  // namespace mxla::semantics::bit_generators
