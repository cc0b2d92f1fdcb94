#include "semantics/select_and_scatter_native.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <cstdint>
#include <type_traits>

#include "ir/hlo_computation.h"
#include "ir/narrow_float.h"
#include "ir/shape_util.h"
#include "semantics/index_walk.h"
#include "semantics/scalar_semantics.h"

namespace mxla::semantics {
namespace {

// Whether `computation` is `root_opcode(parameter(0), parameter(1))` on
// scalars of `type` (or with the parameters swapped: *swapped).
bool IsBinaryOfParameters(const HloComputation& computation,
                          HloOpcode root_opcode, PrimitiveType type,
                          bool* swapped) {
  const HloInstruction* root = computation.root_instruction();
  if (computation.num_parameters() != 2 ||
      computation.instruction_count() != 3 || root == nullptr ||
      root->opcode() != root_opcode || root->operand_count() != 2) {
    return false;
  }
  for (int64_t i = 0; i < 2; ++i) {
    const HloInstruction* operand = root->operand(i);
    if (operand->opcode() != HloOpcode::kParameter ||
        operand->shape() != ShapeUtil::MakeShape(type, {})) {
      return false;
    }
  }
  const int64_t first = root->operand(0)->parameter_number();
  const int64_t second = root->operand(1)->parameter_number();
  if (first == second) return false;
  *swapped = first == 1;
  return true;
}

ComparisonDirection Swapped(ComparisonDirection direction) {
  switch (direction) {
    case ComparisonDirection::kGe:
      return ComparisonDirection::kLe;
    case ComparisonDirection::kGt:
      return ComparisonDirection::kLt;
    case ComparisonDirection::kLe:
      return ComparisonDirection::kGe;
    case ComparisonDirection::kLt:
      return ComparisonDirection::kGt;
    default:
      return direction;
  }
}

// Storage to compute type and back: f16 and bf16 widen to f32 exactly and
// round to nearest even.
template <typename T>
auto Wide(T value) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return value;
  } else {
    return static_cast<float>(value);
  }
}

template <bool kTotalOrder, typename W>
auto Key(W value) {
  if constexpr (kTotalOrder) {
    return TotalOrderKey(value);
  } else {
    return value;
  }
}

// The valid taps of every position along each dimension: the offsets
// (index x row-major stride) of the base elements they read, taps in
// order; first[d][p] .. first[d][p + 1] index into offsets[d].
struct TapTables {
  std::vector<std::vector<int64_t>> first, offsets;
};

TapTables MakeTapTables(const std::vector<int64_t>& dims,
                        const Window& window,
                        const std::vector<int64_t>& positions) {
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  TapTables tables;
  for (size_t d = 0; d < dims.size(); ++d) {
    const WindowDimension& w = window[d];
    std::vector<int64_t>& first = tables.first.emplace_back();
    std::vector<int64_t>& offsets = tables.offsets.emplace_back();
    for (int64_t p = 0; p < positions[d]; ++p) {
      first.push_back(offsets.size());
      for (int64_t t = 0; t < w.size; ++t) {
        const int64_t dilated =
            p * w.stride - w.padding_low + t * w.window_dilation;
        if (dilated < 0 || dilated % w.base_dilation != 0 ||
            dilated / w.base_dilation >= dims[d]) {
          continue;
        }
        offsets.push_back(dilated / w.base_dilation * strides[d]);
      }
    }
    first.push_back(offsets.size());
  }
  return tables;
}

// Whether the positions along `d` read the operand elements of the same
// index, one tap each: a one-tap window of stride 1 without padding or
// dilation.
bool IsOneToOne(const WindowDimension& w) {
  return w.size == 1 && w.stride == 1 && w.padding_low == 0 &&
         w.padding_high == 0 && w.base_dilation == 1 &&
         w.window_dilation == 1;
}

// `take ? candidate : kept` by bit masks. Written as a select, the
// compiler made it a conditional store behind a branch, which random data
// mispredicts half the time: max-pool's gradient ran 4x slower than this
// loop, which vectorizes.
template <typename V>
V Blend(bool take, V kept, V candidate) {
  using U = std::conditional_t<sizeof(V) == 8, uint64_t,
                               std::conditional_t<sizeof(V) == 4, uint32_t,
                                                  uint16_t>>;
  static_assert(sizeof(U) == sizeof(V));
  const U mask = U{0} - static_cast<U>(take);
  return std::bit_cast<V>(static_cast<U>((std::bit_cast<U>(kept) & ~mask) |
                                         (std::bit_cast<U>(candidate) & mask)));
}

// Four f32 lanes in vector registers (GCC's vector extensions: SSE2, the
// baseline, has them). The compiler vectorizes the scalar loop below only
// where its cost model agrees, and it did not for max-pool's gradient over
// 8 features, which ran scalar at 150 cycles a window.
using FloatLanes = float __attribute__((vector_size(16)));
using IntLanes = int32_t __attribute__((vector_size(16)));

// Lanes where `selected direction candidate` holds: IEEE compares, false
// with a NaN, as Compare's scalar ones.
template <ComparisonDirection kDirection>
IntLanes Keeps(FloatLanes selected, FloatLanes candidate) {
  if constexpr (kDirection == ComparisonDirection::kGe) {
    return selected >= candidate;
  } else if constexpr (kDirection == ComparisonDirection::kGt) {
    return selected > candidate;
  } else if constexpr (kDirection == ComparisonDirection::kLe) {
    return selected <= candidate;
  } else {
    static_assert(kDirection == ComparisonDirection::kLt);
    return selected < candidate;
  }
}

// SelectRow for f32 with IEEE compares and `count` a multiple of 4: the
// same selections and the same adds in the same order, four lanes at a
// time.
template <ComparisonDirection kDirection>
void SelectFloatRow(const std::vector<int64_t>& taps, int64_t at,
                    int64_t count, const float* operand, const float* source,
                    int64_t from, float* result, bool source_first) {
  for (int64_t j = 0; j < count; j += 4) {
    FloatLanes best;
    std::memcpy(&best, operand + taps[0] + at + j, sizeof(best));
    IntLanes chosen = {0, 0, 0, 0};
    for (size_t i = 1; i < taps.size(); ++i) {
      FloatLanes candidate;
      std::memcpy(&candidate, operand + taps[i] + at + j, sizeof(candidate));
      const IntLanes keep = Keeps<kDirection>(best, candidate);
      best = keep ? best : candidate;
      chosen = keep ? chosen : IntLanes{} + static_cast<int32_t>(i);
    }
    for (int l = 0; l < 4; ++l) {
      float& element = result[taps[chosen[l]] + at + j + l];
      const float value = source[from + j + l];
      element = source_first ? value + element : element + value;
    }
  }
}

// Selects over `taps` (offsets, in order) for `count` consecutive
// elements of a row starting at `at` (0 past the taps), and scatters the
// `count` source elements from `from` onto them. Each element's selection
// is the scalar one; the elements are independent, so the loops over them
// vectorize where the compiler finds it pays; f32 rows of whole groups of
// 4 (a pooling's 8 or 64 features) take SelectFloatRow's vectors instead.
template <typename T, ComparisonDirection kDirection, bool kTotalOrder>
void SelectRow(const std::vector<int64_t>& taps, int64_t at, int64_t count,
               const T* operand, const T* source, int64_t from, T* result,
               bool source_first) {
  if constexpr (std::is_same_v<T, float> && !kTotalOrder) {
    if (count % 4 == 0) {
      return SelectFloatRow<kDirection>(taps, at, count, operand, source, from,
                                        result, source_first);
    }
  }
  using K = decltype(Key<kTotalOrder>(Wide(T{})));
  constexpr int64_t kBlock = 64;
  K best[kBlock];
  int32_t chosen[kBlock];
  for (int64_t start = 0; start < count; start += kBlock) {
    const int64_t n = std::min(kBlock, count - start);
    const T* first = operand + taps[0] + at + start;
    for (int64_t j = 0; j < n; ++j) {
      best[j] = Key<kTotalOrder>(Wide(first[j]));
      chosen[j] = 0;
    }
    for (size_t i = 1; i < taps.size(); ++i) {
      const T* row = operand + taps[i] + at + start;
      for (int64_t j = 0; j < n; ++j) {
        const K candidate = Key<kTotalOrder>(Wide(row[j]));
        const bool take = !Compare(kDirection, best[j], candidate);
        best[j] = Blend(take, best[j], candidate);
        chosen[j] = Blend(take, chosen[j], static_cast<int32_t>(i));
      }
    }
    for (int64_t j = 0; j < n; ++j) {
      T& element = result[taps[chosen[j]] + at + start + j];
      const auto wide = Wide(element);
      const auto value = Wide(source[from + start + j]);
      element = T(source_first ? value + wide : wide + value);
    }
  }
}

// The offsets of `position`'s valid taps along its first `walked`
// dimensions, in row-major tap order, built dimension by dimension into
// `taps` (`next` is scratch); empty where a dimension has none.
void PositionTaps(const TapTables& tables, const std::vector<int64_t>& position,
                  int64_t walked, std::vector<int64_t>& taps,
                  std::vector<int64_t>& next) {
  taps.assign(1, 0);
  for (int64_t d = 0; d < walked && !taps.empty(); ++d) {
    const int64_t* offsets =
        tables.offsets[d].data() + tables.first[d][position[d]];
    const int64_t count =
        tables.first[d][position[d] + 1] - tables.first[d][position[d]];
    if (count == 1) {
      for (int64_t& tap : taps) tap += offsets[0];
      continue;
    }
    next.clear();
    for (int64_t tap : taps) {
      for (int64_t i = 0; i < count; ++i) next.push_back(tap + offsets[i]);
    }
    taps.swap(next);
  }
}

// Steps `position` to the next in row-major order of its first `walked`
// dimensions within [low, high); false after the last.
bool NextPosition(const std::vector<int64_t>& low,
                  const std::vector<int64_t>& high, int64_t walked,
                  std::vector<int64_t>& position) {
  for (int64_t d = walked - 1; d >= 0; --d) {
    if (++position[d] < high[d]) return true;
    position[d] = low[d];
  }
  return false;
}

// Windows that lie wholly inside the operand along every walked dimension
// (no padding, no base-dilation holes under them) read their taps at the
// same offsets from their first element: `relative` holds those offsets
// once, in row-major tap order, and per dimension origin[d][p] is the
// offset of position p's first tap and inside[d][p] whether its window is
// inside. The other windows build their taps one by one (PositionTaps).
struct InteriorWindows {
  std::vector<int64_t> relative;
  std::vector<std::vector<int64_t>> origin;
  std::vector<std::vector<char>> inside;
};

InteriorWindows MakeInteriorWindows(const std::vector<int64_t>& dims,
                                    const Window& window,
                                    const std::vector<int64_t>& positions,
                                    int64_t walked) {
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  InteriorWindows windows;
  windows.relative.assign(1, 0);
  for (int64_t d = 0; d < walked; ++d) {
    const WindowDimension& w = window[d];
    std::vector<int64_t> next;
    for (int64_t tap : windows.relative) {
      for (int64_t t = 0; t < w.size; ++t) {
        next.push_back(tap + t * w.window_dilation * strides[d]);
      }
    }
    windows.relative.swap(next);
    std::vector<int64_t>& origin = windows.origin.emplace_back();
    std::vector<char>& inside = windows.inside.emplace_back();
    for (int64_t p = 0; p < positions[d]; ++p) {
      const int64_t first = p * w.stride - w.padding_low;
      const int64_t last = first + (w.size - 1) * w.window_dilation;
      origin.push_back(first * strides[d]);
      inside.push_back(w.base_dilation == 1 && w.size > 0 && first >= 0 &&
                       last < dims[d]);
    }
  }
  return windows;
}

template <typename T, ComparisonDirection kDirection, bool kTotalOrder>
void Run(const std::vector<int64_t>& dims, const Window& window,
         const T* operand, const T* source, T* result, bool source_first,
         int64_t dimension, int64_t begin, int64_t end) {
  const int64_t rank = dims.size();
  if (rank == 0) {
    // One position, one tap.
    SelectRow<T, kDirection, kTotalOrder>({0}, 0, 1, operand, source, 0,
                                          result, source_first);
    return;
  }
  std::vector<int64_t> positions(rank);
  for (int64_t d = 0; d < rank; ++d) {
    positions[d] = WindowOutputSize(dims[d], window[d]);
    if (positions[d] == 0) return;
  }
  std::vector<int64_t> low(rank, 0), high = positions;
  if (dimension >= 0) {
    low[dimension] = begin;
    high[dimension] = end;
    if (begin >= end) return;
  }
  const TapTables tables = MakeTapTables(dims, window, positions);
  const std::vector<int64_t> source_strides = RowMajorStrides(positions);
  // When the minor dimension is one to one (a pooling's features), its
  // positions are done a row at a time: they share the taps' offsets.
  const int64_t walked = IsOneToOne(window[rank - 1]) ? rank - 1 : rank;
  const InteriorWindows interior =
      MakeInteriorWindows(dims, window, positions, walked);
  const int64_t row_begin = walked < rank ? low[rank - 1] : 0;
  const int64_t row = walked < rank ? high[rank - 1] - low[rank - 1] : 1;
  std::vector<int64_t> position = low;
  std::vector<int64_t> taps, next;
  auto select_row = [&](const std::vector<int64_t>& offsets, int64_t at,
                        int64_t from) {
    SelectRow<T, kDirection, kTotalOrder>(offsets, at, row, operand, source,
                                          from, result, source_first);
  };
  do {
    int64_t source_index = 0;
    int64_t origin = 0;
    bool inside = true;
    for (int64_t d = 0; d < walked; ++d) {
      source_index += position[d] * source_strides[d];
      origin += interior.origin[d][position[d]];
      inside = inside && interior.inside[d][position[d]];
    }
    if (inside) {
      select_row(interior.relative, origin + row_begin,
                 source_index + row_begin);
      continue;
    }
    PositionTaps(tables, position, walked, taps, next);
    if (taps.empty()) continue;
    select_row(taps, row_begin, source_index + row_begin);
  } while (NextPosition(low, high, walked, position));
}

template <typename T>
void RunTyped(const NativeSelectAndScatter& form,
              const std::vector<int64_t>& dims, const Window& window,
              const void* operand, const void* source, void* result,
              int64_t dimension, int64_t begin, int64_t end) {
  auto run = [&](auto direction, auto total_order) {
    Run<T, decltype(direction)::value, decltype(total_order)::value>(
        dims, window, static_cast<const T*>(operand),
        static_cast<const T*>(source), static_cast<T*>(result),
        form.source_first, dimension, begin, end);
  };
  auto with_order = [&](auto direction) {
    if (form.total_order) {
      run(direction, std::true_type{});
    } else {
      run(direction, std::false_type{});
    }
  };
  using D = ComparisonDirection;
  switch (form.direction) {
    case D::kGe:
      return with_order(std::integral_constant<D, D::kGe>{});
    case D::kGt:
      return with_order(std::integral_constant<D, D::kGt>{});
    case D::kLe:
      return with_order(std::integral_constant<D, D::kLe>{});
    case D::kLt:
      return with_order(std::integral_constant<D, D::kLt>{});
    default:
      return;
  }
}

}  // namespace

std::optional<NativeSelectAndScatter> MatchNativeSelectAndScatter(
    const HloInstruction& instruction) {
  if (instruction.opcode() != HloOpcode::kSelectAndScatter ||
      instruction.operand_count() != 3 ||
      instruction.called_computations().size() != 2 ||
      !instruction.shape().IsArray()) {
    return std::nullopt;
  }
  NativeSelectAndScatter form;
  form.type = instruction.shape().element_type();
  if (form.type != F32 && form.type != F64 && form.type != BF16 &&
      form.type != F16) {
    return std::nullopt;
  }
  for (const HloInstruction* operand : instruction.operands()) {
    if (operand->shape().element_type() != form.type) return std::nullopt;
  }
  bool swapped = false;
  const HloComputation& select = *instruction.called_computations()[0];
  if (!IsBinaryOfParameters(select, HloOpcode::kCompare, form.type,
                            &swapped)) {
    return std::nullopt;
  }
  const HloInstruction& compare = *select.root_instruction();
  form.direction = compare.comparison_direction();
  if (form.direction == ComparisonDirection::kEq ||
      form.direction == ComparisonDirection::kNe) {
    return std::nullopt;
  }
  if (swapped) form.direction = Swapped(form.direction);
  form.total_order = compare.total_order_comparison();
  if (!IsBinaryOfParameters(*instruction.called_computations()[1],
                            HloOpcode::kAdd, form.type, &form.source_first)) {
    return std::nullopt;
  }
  return form;
}

int64_t IndependentDimension(const std::vector<int64_t>& operand_dims,
                             const Window& window, int threads) {
  int64_t best = -1;
  for (size_t d = 0; d < operand_dims.size(); ++d) {
    if (!IsOneToOne(window[d])) continue;
    if (operand_dims[d] >= threads) return d;
    if (best < 0 || operand_dims[d] > operand_dims[best]) best = d;
  }
  return best;
}

void RunNativeSelectAndScatter(const NativeSelectAndScatter& form,
                               const std::vector<int64_t>& operand_dims,
                               const Window& window, const void* operand,
                               const void* source, void* result,
                               int64_t dimension, int64_t begin, int64_t end) {
  switch (form.type) {
    case F32:
      return RunTyped<float>(form, operand_dims, window, operand, source,
                             result, dimension, begin, end);
    case F64:
      return RunTyped<double>(form, operand_dims, window, operand, source,
                              result, dimension, begin, end);
    case BF16:
      return RunTyped<BFloat16>(form, operand_dims, window, operand, source,
                                result, dimension, begin, end);
    case F16:
      return RunTyped<Half>(form, operand_dims, window, operand, source,
                            result, dimension, begin, end);
    default:
      return;
  }
}

}  // namespace mxla::semantics
