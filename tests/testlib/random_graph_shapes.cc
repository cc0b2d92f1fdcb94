// Random shapes, broadcast partners, reshapes and literals for the
// generator. Sizes are 1 often (degenerate dimensions are the point of the
// broadcasting tests) and 0 rarely.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "ir/primitive_type.h"
#include "tests/testlib/random_graph_internal.h"

namespace mxla::random_graph_internal {
namespace {

template <typename T>
T RandomElement(Rng& rng, ValueStyle style) {
  if constexpr (std::is_same_v<T, bool>) {
    return rng.OneIn(2);
  } else if constexpr (kIsSubByteInt<T>) {
    if (style == ValueStyle::kNonZero) {
      return T(rng.UniformIn(1, std::min<int64_t>(T::kMax, 8)));
    }
    return T(rng.UniformIn(T::kMin, T::kMax));
  } else if constexpr (std::is_integral_v<T>) {
    if (style == ValueStyle::kNonZero)
      return static_cast<T>(rng.UniformIn(1, 8));
    if constexpr (std::is_unsigned_v<T>) {
      return static_cast<T>(rng.UniformIn(0, 15));
    }
    return static_cast<T>(rng.UniformIn(-8, 7));
  } else {
    if (style == ValueStyle::kNonZero) {
      return static_cast<T>(static_cast<double>(rng.UniformIn(2, 7)) / 4);
    }
    // Quarters sometimes (exact ties for floor/ceil/compare), else 24
    // random bits. Never 0, so log(abs(x)) of an argument stays finite.
    if (rng.OneIn(4)) {
      int64_t q = rng.UniformIn(-8, 6);
      return static_cast<T>(static_cast<double>(q >= 0 ? q + 1 : q) / 4);
    }
    int64_t k = static_cast<int64_t>(rng.Next() >> 40) - (int64_t{1} << 23);
    if (k == 0) k = 1;
    return static_cast<T>(static_cast<double>(k) / (int64_t{1} << 22));
  }
}

std::vector<int64_t> PrimeFactors(int64_t n) {
  std::vector<int64_t> factors;
  for (int64_t p = 2; p * p <= n; ++p) {
    while (n % p == 0) {
      factors.push_back(p);
      n /= p;
    }
  }
  if (n > 1) factors.push_back(n);
  return factors;
}

// The partner's size where the other operand has `size`: equal, 1 (the
// partner stretches) or, against a 1, anything (the other one stretches).
int64_t PartnerSize(Rng& rng, int64_t size, const ShapeLimits& limits) {
  switch (rng.Uniform(4)) {
    case 0:
      return 1;
    case 1:
      return size == 1 ? RandomDimensionSize(rng, limits) : size;
    default:
      return size;
  }
}

// Drops some size-1 dimensions and inserts others.
std::vector<int64_t> ToggleOnes(Rng& rng, absl::Span<const int64_t> dims,
                                const ShapeLimits& limits, int64_t min_rank) {
  std::vector<int64_t> out;
  for (int64_t size : dims) {
    if (size != 1 || rng.OneIn(2)) out.push_back(size);
  }
  const int64_t max_rank = limits.max_rank;
  while (static_cast<int64_t>(out.size()) < max_rank &&
         (static_cast<int64_t>(out.size()) < min_rank || rng.OneIn(2))) {
    out.insert(out.begin() + rng.Uniform(out.size() + 1), 1);
  }
  return out;
}

bool Compatible(int64_t a, int64_t b) { return a == b || a == 1 || b == 1; }

}  // namespace

int64_t RandomDimensionSize(Rng& rng, const ShapeLimits& limits) {
  if (limits.allow_zero_sizes && rng.OneIn(50)) return 0;
  if (limits.max_dimension_size <= 1 || rng.OneIn(3)) return 1;
  return rng.UniformIn(2, limits.max_dimension_size);
}

int64_t RandomRank(Rng& rng, const ShapeLimits& limits) {
  if (limits.max_rank == 0 || (limits.allow_scalars && rng.OneIn(8))) return 0;
  return rng.UniformIn(1, limits.max_rank);
}

std::vector<int64_t> RandomDimensions(Rng& rng, const ShapeLimits& limits,
                                      int64_t rank) {
  std::vector<int64_t> dims(rank);
  for (int64_t& size : dims) size = RandomDimensionSize(rng, limits);
  return dims;
}

std::vector<int64_t> RandomReshape(Rng& rng, absl::Span<const int64_t> dims,
                                   const ShapeLimits& limits) {
  int64_t count = 1;
  for (int64_t size : dims) count *= size;
  const int64_t min_rank = count == 1 && limits.allow_scalars ? 0 : 1;
  if (limits.max_rank < min_rank) return {dims.begin(), dims.end()};
  if (count == 0) {
    int64_t rank = rng.UniformIn(1, limits.max_rank);
    std::vector<int64_t> out = RandomDimensions(rng, limits, rank);
    out[rng.Uniform(rank)] = 0;
    return out;
  }
  if (rng.OneIn(3)) return ToggleOnes(rng, dims, limits, min_rank);
  std::vector<int64_t> factors = PrimeFactors(count);
  int64_t rank = rng.UniformIn(factors.empty() ? min_rank : 1, limits.max_rank);
  std::vector<int64_t> out(rank, 1);
  for (int64_t p : factors) out[rng.Uniform(rank)] *= p;
  return out;
}

Partner RandomPartner(Rng& rng, absl::Span<const int64_t> a,
                      const ShapeLimits& limits) {
  enum Case { kEqual, kScalar, kLower, kSameRank, kHigher };
  const int64_t rank = a.size();
  std::vector<Case> cases = {kEqual, kSameRank, kSameRank};
  if (limits.allow_scalars && rank > 0) cases.push_back(kScalar);
  if (rank >= 2) cases.insert(cases.end(), {kLower, kLower});
  if (rank < limits.max_rank) cases.insert(cases.end(), {kHigher, kHigher});
  Partner partner;
  switch (rng.Pick(cases)) {
    case kEqual:
      partner.dimensions.assign(a.begin(), a.end());
      break;
    case kScalar:
      break;
    case kLower:
      partner.broadcast_dimensions =
          rng.Subset(rank, rng.UniformIn(1, rank - 1));
      for (int64_t d : partner.broadcast_dimensions) {
        partner.dimensions.push_back(PartnerSize(rng, a[d], limits));
      }
      break;
    case kSameRank:
      for (int64_t size : a) {
        partner.dimensions.push_back(PartnerSize(rng, size, limits));
      }
      break;
    case kHigher: {
      int64_t partner_rank = rng.UniformIn(rank + 1, limits.max_rank);
      partner.dimensions = RandomDimensions(rng, limits, partner_rank);
      if (rank > 0)
        partner.broadcast_dimensions = rng.Subset(partner_rank, rank);
      for (int64_t i = 0; i < rank; ++i) {
        partner.dimensions[partner.broadcast_dimensions[i]] =
            PartnerSize(rng, a[i], limits);
      }
      break;
    }
  }
  return partner;
}

std::vector<std::vector<int64_t>> LegalBroadcastDimensions(
    absl::Span<const int64_t> a, absl::Span<const int64_t> b) {
  if (a.size() == b.size()) {
    for (size_t i = 0; i < a.size(); ++i) {
      if (!Compatible(a[i], b[i])) return {};
    }
    return {{}};
  }
  absl::Span<const int64_t> small = a.size() < b.size() ? a : b;
  absl::Span<const int64_t> large = a.size() < b.size() ? b : a;
  if (small.empty()) return {{}};
  std::vector<std::vector<int64_t>> result;
  if (large.size() > 16) return result;  // never generated; bounds the loop
  for (uint32_t mask = 0; mask < (1u << large.size()); ++mask) {
    if (std::popcount(mask) != static_cast<int>(small.size())) continue;
    std::vector<int64_t> dims;
    for (size_t d = 0; d < large.size(); ++d) {
      if ((mask >> d) & 1u) dims.push_back(d);
    }
    bool ok = true;
    for (size_t i = 0; i < small.size() && ok; ++i) {
      ok = Compatible(small[i], large[dims[i]]);
    }
    if (ok) result.push_back(std::move(dims));
  }
  return result;
}

Literal RandomLiteral(Rng& rng, const Shape& shape, ValueStyle style) {
  Literal literal(shape);
  // One sign for all divisors of a literal keeps 0 out of its range.
  const bool negate = style == ValueStyle::kNonZero && rng.OneIn(2);
  primitive_util::ArrayTypeSwitch(shape.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (T& x : literal.data<T>()) {
      x = RandomElement<T>(rng, style);
      if constexpr (kIsNarrowFloat<T>) {
        if (negate) x = T(-static_cast<float>(x));
      } else if constexpr (kIsSubByteInt<T>) {
        if (negate) x = T(-int64_t{x.value()});
      } else if constexpr (!std::is_same_v<T, bool>) {
        if (negate) x = static_cast<T>(-x);
      }
    }
  });
  return literal;
}

Literal ExponentLiteral(Rng& rng, const Shape& shape,
                        absl::Span<const double> choices) {
  Literal literal(shape);
  primitive_util::ArrayTypeSwitch(shape.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (T& x : literal.data<T>()) {
      const double choice = choices[rng.Uniform(choices.size())];
      if constexpr (kIsSubByteInt<T>) {
        x = T(static_cast<int64_t>(choice));
      } else {
        x = static_cast<T>(choice);
      }
    }
  });
  return literal;
}

}  // namespace mxla::random_graph_internal
