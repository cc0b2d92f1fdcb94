#include "passes/rng_bit_generator_expander.h"

#include <array>
#include <cstdint>
#include <vector>

#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/expansion_util.h"
#include "semantics/bit_generators.h"
#include "semantics/index_walk.h"

namespace mxla {
namespace {

namespace bits = semantics::bit_generators;
using O = HloOpcode;

// u32 and u64 arithmetic over the result's dimensions.
class Builder : public expansion::ElementwiseBuilder {
 public:
  using ElementwiseBuilder::ElementwiseBuilder;
  using Words2 = std::array<HloInstruction*, 2>;
  using Words4 = std::array<HloInstruction*, 4>;

  HloInstruction* U32(uint32_t value) { return Splat<uint32_t>(value); }
  HloInstruction* U64(uint64_t value) { return Splat<uint64_t>(value); }
  HloInstruction* Plus(HloInstruction* x, HloInstruction* y) {
    return Binary(O::kAdd, x, y);
  }
  HloInstruction* Xor(HloInstruction* x, HloInstruction* y) {
    return Binary(O::kXor, x, y);
  }
  // Iota along `dimension` of the result, u64.
  HloInstruction* Iota(int64_t dimension) {
    return Add(HloInstruction::CreateIota(ArrayOf(PrimitiveType::U64),
                                          dimension));
  }
  // Each element's row-major index, u64.
  HloInstruction* ElementIndex() {
    const std::vector<int64_t> strides = semantics::RowMajorStrides(dims_);
    HloInstruction* index = U64(0);
    for (size_t d = 0; d < dims_.size(); ++d) {
      index = Plus(index, Binary(O::kMultiply, Iota(d), U64(strides[d])));
    }
    return index;
  }
  // The low and high words of a u64 array.
  Words2 Split(HloInstruction* x) {
    return {Convert(x, PrimitiveType::U32),
            Convert(Binary(O::kShiftRightLogical, x, U64(32)),
                    PrimitiveType::U32)};
  }
  HloInstruction* Join(HloInstruction* low, HloInstruction* high) {
    return Binary(O::kOr, Convert(low, PrimitiveType::U64),
                  Binary(O::kShiftLeft, Convert(high, PrimitiveType::U64),
                         U64(32)));
  }

  Words2 ThreeFry(Words2 x, Words2 key) {
    const std::array<HloInstruction*, 3> schedule = {
        key[0], key[1], Xor(U32(bits::kThreeFryParity), Xor(key[0], key[1]))};
    x = {Plus(x[0], schedule[0]), Plus(x[1], schedule[1])};
    for (uint32_t group = 0; group < 5; ++group) {
      for (int r = 0; r < 4; ++r) {
        const int rotation = bits::kThreeFryRotations[(group % 2) * 4 + r];
        x[0] = Plus(x[0], x[1]);
        x[1] = Xor(x[0], RotateLeft(x[1], rotation));
      }
      x[0] = Plus(x[0], schedule[(group + 1) % 3]);
      x[1] = Plus(x[1], Plus(schedule[(group + 2) % 3], U32(group + 1)));
    }
    return x;
  }

  Words4 Philox(Words4 x, Words2 key) {
    for (int round = 0; round < bits::kPhiloxRounds; ++round) {
      const Words2 p0 = MultiplyWide(x[0], bits::kPhiloxMultiplier0);
      const Words2 p1 = MultiplyWide(x[2], bits::kPhiloxMultiplier1);
      x = {Xor(Xor(p1[1], x[1]), key[0]), p1[0], Xor(Xor(p0[1], x[3]), key[1]),
           p0[0]};
      key = {Plus(key[0], U32(bits::kPhiloxWeyl0)),
             Plus(key[1], U32(bits::kPhiloxWeyl1))};
    }
    return x;
  }

 private:
  HloInstruction* RotateLeft(HloInstruction* x, int distance) {
    return Binary(O::kOr, Binary(O::kShiftLeft, x, U32(distance)),
                  Binary(O::kShiftRightLogical, x, U32(32 - distance)));
  }
  // The 64-bit product x * k as (low, high) words.
  Words2 MultiplyWide(HloInstruction* x, uint32_t k) {
    return Split(
        Binary(O::kMultiply, Convert(x, PrimitiveType::U64), U64(k)));
  }
};

// Element `i` of the state, a u64 scalar.
HloInstruction* StateWord(HloComputation& computation, HloInstruction* state,
                          int64_t i) {
  HloInstruction* slice = computation.AddInstruction(
      HloInstruction::CreateGeneric(O::kSlice, ShapeUtil::MakeShape(U64, {1}),
                                    {state}));
  slice->set_slice({i}, {i + 1}, {1});
  return computation.AddInstruction(
      HloInstruction::CreateReshape(ShapeUtil::MakeShape(U64, {}), slice));
}

// The state array of `words` (u64 scalars).
HloInstruction* StateOf(HloComputation& computation,
                        const std::vector<HloInstruction*>& words) {
  std::vector<HloInstruction*> pieces;
  for (HloInstruction* word : words) {
    pieces.push_back(computation.AddInstruction(
        HloInstruction::CreateReshape(ShapeUtil::MakeShape(U64, {1}), word)));
  }
  HloInstruction* state = computation.AddInstruction(
      HloInstruction::CreateGeneric(
          O::kConcatenate,
          ShapeUtil::MakeShape(U64, {static_cast<int64_t>(words.size())}),
          pieces));
  state->set_dimensions({0});
  return state;
}

struct Generated {
  HloInstruction* values;  // u32 or u64 over the result's dimensions
  std::vector<HloInstruction*> state;
};

Generated ThreeFry(HloComputation& computation, HloInstruction* state,
                   const Shape& shape) {
  Builder b(computation, shape.dimensions());
  Builder scalar(computation, {});
  HloInstruction* key = StateWord(computation, state, 0);
  HloInstruction* counter = StateWord(computation, state, 1);
  const Builder::Words2 key_halves = scalar.Split(key);
  const Builder::Words2 key_words = {b.Splat(key_halves[0]),
                                     b.Splat(key_halves[1])};
  auto words_at = [&](HloInstruction* offset) {
    return b.ThreeFry(b.Split(b.Plus(b.Splat(counter), offset)), key_words);
  };
  auto advanced = [&](int64_t count) {
    return std::vector<HloInstruction*>{
        key, scalar.Plus(counter, scalar.U64(static_cast<uint64_t>(count)))};
  };
  if (primitive_util::BitWidth(shape.element_type()) == 64) {
    const Builder::Words2 w = words_at(b.ElementIndex());
    return {b.Join(w[0], w[1]), advanced(ShapeUtil::ElementsIn(shape))};
  }
  const int64_t split = bits::ThreeFrySplitDimension(shape.dimensions());
  if (split < 0) return {words_at(b.U64(0))[0], advanced(1)};
  // Neighbours 2j and 2j + 1 along `split` share counter j.
  std::vector<int64_t> halved(shape.dimensions().begin(),
                              shape.dimensions().end());
  halved[split] = (halved[split] + 1) / 2;
  const std::vector<int64_t> strides = semantics::RowMajorStrides(halved);
  HloInstruction* offset = b.U64(0);
  for (int64_t d = 0; d < shape.rank(); ++d) {
    HloInstruction* position = b.Iota(d);
    if (d == split) {
      position = b.Binary(O::kShiftRightLogical, position, b.U64(1));
    }
    offset = b.Plus(offset,
                    b.Binary(O::kMultiply, position, b.U64(strides[d])));
  }
  const Builder::Words2 w = words_at(offset);
  HloInstruction* odd = b.Compare(b.Binary(O::kAnd, b.Iota(split), b.U64(1)),
                                  b.U64(1), ComparisonDirection::kEq);
  return {b.Select(odd, w[1], w[0]),
          advanced(ShapeUtil::ElementsIn(ShapeUtil::MakeShape(U64, halved)))};
}

// A 128-bit counter (low, high) plus a u64 step, as (low, high).
template <typename B>
std::array<HloInstruction*, 2> Advance(B& b, HloInstruction* low,
                                       HloInstruction* high,
                                       HloInstruction* step) {
  HloInstruction* new_low = b.Plus(low, step);
  HloInstruction* wrapped =
      b.Compare(new_low, low, ComparisonDirection::kLt);
  return {new_low, b.Select(wrapped, b.Plus(high, b.U64(1)), high)};
}

Generated Philox(HloComputation& computation, HloInstruction* state,
                 const Shape& shape) {
  Builder b(computation, shape.dimensions());
  Builder scalar(computation, {});
  const int64_t n = state->shape().dimensions(0);
  HloInstruction* key = StateWord(computation, state, 0);
  HloInstruction* low = StateWord(computation, state, 1);
  // A u64[2] state's counter has the key as its high half.
  HloInstruction* high = n >= 3 ? StateWord(computation, state, 2) : key;
  const bool wide = primitive_util::BitWidth(shape.element_type()) == 64;
  const int shift = wide ? 1 : 2;  // log2 of the elements per counter
  HloInstruction* index = b.ElementIndex();
  const auto [counter_low, counter_high] =
      Advance(b, b.Splat(low), b.Splat(high),
              b.Binary(O::kShiftRightLogical, index, b.U64(shift)));
  const Builder::Words2 lw = b.Split(counter_low);
  const Builder::Words2 hw = b.Split(counter_high);
  const Builder::Words2 key_halves = scalar.Split(key);
  const Builder::Words4 w =
      b.Philox({lw[0], lw[1], hw[0], hw[1]},
               {b.Splat(key_halves[0]), b.Splat(key_halves[1])});
  HloInstruction* slot =
      b.Binary(O::kAnd, index, b.U64((uint64_t{1} << shift) - 1));
  auto slot_is = [&](uint64_t k) {
    return b.Compare(slot, b.U64(k), ComparisonDirection::kEq);
  };
  HloInstruction* values;
  if (wide) {
    values = b.Select(slot_is(0), b.Join(w[0], w[1]), b.Join(w[2], w[3]));
  } else {
    values = b.Select(slot_is(0), w[0],
                      b.Select(slot_is(1), w[1],
                               b.Select(slot_is(2), w[2], w[3])));
  }
  const int64_t per_counter = int64_t{1} << shift;
  const uint64_t counters = static_cast<uint64_t>(
      (ShapeUtil::ElementsIn(shape) + per_counter - 1) / per_counter);
  const auto [new_low, new_high] =
      Advance(scalar, low, high, scalar.U64(counters));
  std::vector<HloInstruction*> words = {key, new_low};
  if (n >= 3) words.push_back(new_high);
  return {values, words};
}

absl::StatusOr<HloInstruction*> Expand(HloComputation& computation,
                                       HloInstruction* rng) {
  ASSIGN_OR_RETURN(RandomAlgorithm algorithm, rng->rng_algorithm());
  HloInstruction* state = rng->mutable_operand(0);
  const Shape& shape = rng->shape().tuple_shapes(1);
  const Generated generated =
      bits::Resolve(algorithm) == RandomAlgorithm::kThreeFry
          ? ThreeFry(computation, state, shape)
          : Philox(computation, state, shape);
  Builder b(computation, shape.dimensions());
  HloInstruction* values = b.Convert(generated.values, shape.element_type());
  HloInstruction* new_state = StateOf(computation, generated.state);
  return computation.AddInstruction(
      HloInstruction::CreateTuple({new_state, values}));
}

}  // namespace

absl::StatusOr<bool> RngBitGeneratorExpanderPass::Run(HloModule& module) {
  return expansion::ExpandEach(module, {HloOpcode::kRngBitGenerator}, Expand);
}

}  // namespace mxla
