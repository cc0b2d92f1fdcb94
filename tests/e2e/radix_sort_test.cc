// The native sort's radix path for whole rows of 16-bit keys
// (runtime/radix_sort.h): the words carry a payload of at most 16 bits,
// or positions through which the one read result is gathered, or through
// which several are. Each against the interpreter at 1, 2 and 3 threads
// on rows of 0, 1, 2, 65, 255, 257 and 4097 elements (four rows at a time
// and a tail), keys with NaNs of both signs, infinities, both zeros,
// denormals and many duplicates, LT and GT, TOTALORDER and the default
// compare (rows with and without NaNs side by side); every 16-bit pattern;
// and stability and the NaN order checked against hand-made expectations.
#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::MatchesInterpreterAtThreadCounts;
using ::mxla::testing::Pointers;
using ::mxla::testing::RunAtThreadCounts;

// The JIT at 1, 2 and 3 threads against the interpreter, bit for bit.
void ExpectSameBits(const std::string& text,
                    const std::vector<Literal>& arguments) {
  SCOPED_TRACE(text);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  EXPECT_TRUE(MatchesInterpreterAtThreadCounts(*module, Pointers(arguments),
                                               {1, 2, 3}));
}

// Keys of 16 bits: half from a pool of specials (zeros of both signs,
// +-1, the infinities, denormals of both signs, NaNs of both signs and two
// payloads where `nans` allows), many repeated; half random bits. Under
// `nans`, only even rows (along the last dimension) hold NaNs, so rows
// with and without NaNs sort side by side.
Literal Keys16(PrimitiveType type, const std::vector<int64_t>& dims, bool nans,
               uint32_t seed) {
  const bool bf16 = type == BF16;
  const uint16_t infinity = bf16 ? 0x7f80 : 0x7c00;
  const std::vector<uint16_t> specials = {0,
                                          0x8000,
                                          uint16_t(bf16 ? 0x3f80 : 0x3c00),
                                          uint16_t(bf16 ? 0xbf80 : 0xbc00),
                                          infinity,
                                          uint16_t(infinity | 0x8000),
                                          1,
                                          0x8001,
                                          2};
  const std::vector<uint16_t> nan_pool = {
      uint16_t(infinity | 0x40), uint16_t(infinity | 0x8040),
      uint16_t(infinity + 1), uint16_t(infinity | 0x8001)};
  const bool is_float = type == BF16 || type == F16;
  Literal literal(ShapeUtil::MakeShape(type, dims));
  uint16_t* data = static_cast<uint16_t*>(literal.untyped_data());
  const int64_t count = literal.size_bytes() / 2;
  const int64_t row = dims.back() == 0 ? 1 : dims.back();
  std::mt19937 random(seed);
  for (int64_t i = 0; i < count; ++i) {
    const bool row_nans = nans && is_float && (i / row) % 2 == 0;
    uint16_t bits;
    do {
      bits = random() % 2 ? specials[random() % specials.size()]
                          : uint16_t(random());
      if (row_nans && random() % 8 == 0) {
        bits = nan_pool[random() % nan_pool.size()];
      }
    } while (is_float && !row_nans && (bits & 0x7fff) > infinity);
    data[i] = bits;
  }
  return literal;
}

// Random bits for a payload operand.
Literal RandomBits(PrimitiveType type, const std::vector<int64_t>& dims,
                   uint32_t seed) {
  Literal literal(ShapeUtil::MakeShape(type, dims));
  std::mt19937 random(seed);
  uint8_t* data = static_cast<uint8_t*>(literal.untyped_data());
  for (int64_t i = 0; i < literal.size_bytes(); ++i) data[i] = random();
  return literal;
}

// sort(x, payloads...) along `dimension` by compare(x_lhs, x_rhs), the
// results `read` returned (one: that array; more: a tuple of them).
std::string RadixModule(PrimitiveType type, const std::vector<int64_t>& dims,
                        int64_t dimension, const std::string& direction,
                        bool total_order,
                        const std::vector<PrimitiveType>& payloads,
                        const std::vector<int>& read) {
  const std::string shape = absl::StrCat("[", absl::StrJoin(dims, ","), "]");
  auto name = [](PrimitiveType t) {
    return std::string(primitive_util::LowercaseName(t));
  };
  std::string parameters, operands = "x", element_types = name(type) + shape;
  for (size_t i = 0; i < payloads.size(); ++i) {
    const std::string t = name(payloads[i]);
    absl::StrAppend(&parameters, "  p", 2 * i + 2, " = ", t, "[] parameter(",
                    2 * i + 2, ")\n  p", 2 * i + 3, " = ", t, "[] parameter(",
                    2 * i + 3, ")\n");
    absl::StrAppend(&operands, ", y", i);
    absl::StrAppend(&element_types, ", ", t, shape);
  }
  std::string entry;
  for (size_t i = 0; i < payloads.size(); ++i) {
    absl::StrAppend(&entry, "  y", i, " = ", name(payloads[i]), shape,
                    " parameter(", i + 1, ")\n");
  }
  if (payloads.empty()) {  // one operand: the sort's result is an array
    absl::StrAppend(&entry, "  ROOT s = ", element_types,
                    " sort(x), dimensions={", dimension, "}, to_apply=cmp\n");
  } else {
    absl::StrAppend(&entry, "  s = (", element_types, ") sort(", operands,
                    "), dimensions={", dimension, "}, to_apply=cmp\n");
    std::vector<std::string> results;
    for (int i : read) {
      const PrimitiveType t = i == 0 ? type : payloads[i - 1];
      absl::StrAppend(&entry, read.size() == 1 ? "  ROOT g" : "  g", i, " = ",
                      name(t), shape, " get-tuple-element(s), index=", i, "\n");
      results.push_back(absl::StrCat("g", i));
    }
    if (results.size() > 1) {
      absl::StrAppend(&entry, "  ROOT r = tuple(", absl::StrJoin(results, ", "),
                      ")\n");
    }
  }
  return absl::StrCat("HloModule radix\ncmp {\n  a = ", name(type),
                      "[] parameter(0)\n  b = ", name(type),
                      "[] parameter(1)\n", parameters,
                      "  ROOT c = pred[] compare(a, b), direction=", direction,
                      total_order ? ", type=TOTALORDER" : "",
                      "\n}\nENTRY main {\n  x = ", name(type), shape,
                      " parameter(0)\n", entry, "}\n");
}

// What the radix path's words carry: the key itself, a u8 or bf16
// payload, positions for one s32 or f64 result, positions for several.
struct Carried {
  std::vector<PrimitiveType> payloads;
  std::vector<int> read;
};
const std::vector<Carried>& EveryCarriedForm() {
  static const auto* forms = new std::vector<Carried>{
      {{}, {0}},                // the key: the words are the results
      {{U8}, {1}},              // a u8 payload in the words
      {{BF16}, {1}},            // a bf16 payload in the words
      {{S32}, {1}},             // s32 gathered as the words leave
      {{F64}, {1}},             // f64 gathered as the words leave
      {{S32, U8}, {0, 1, 2}}};  // positions, then three gathers
  return *forms;
}

void ExpectRadixForms(PrimitiveType type, const std::vector<int64_t>& dims,
                      int64_t dimension, const char* direction,
                      bool total_order, bool nans, uint32_t& seed) {
  for (const Carried& form : EveryCarriedForm()) {
    std::vector<Literal> arguments;
    arguments.push_back(Keys16(type, dims, nans, ++seed));
    for (PrimitiveType payload : form.payloads) {
      arguments.push_back(RandomBits(payload, dims, ++seed));
    }
    ExpectSameBits(RadixModule(type, dims, dimension, direction, total_order,
                               form.payloads, form.read),
                   arguments);
  }
}

TEST(RadixSortTest, EveryCarriedFormRowLengthAndKeyType) {
  uint32_t seed = 0;
  for (PrimitiveType type : {BF16, F16, S16, U16}) {
    const bool is_float = type == BF16 || type == F16;
    for (const char* direction : {"LT", "GT"}) {
      for (bool total_order : {true, false}) {
        if (total_order && !is_float) continue;
        // Five rows: a group of four and a tail of one.
        for (int64_t n : {0, 1, 2, 65, 255, 257}) {
          ExpectRadixForms(type, {5, n}, 1, direction, total_order, is_float,
                           seed);
        }
      }
    }
  }
}

// Rows longer than the interleaved ones (one at a time), rows along a
// non-minor dimension, and 13 rows split over 1, 2 and 3 threads (groups
// of four and tails at every split).
TEST(RadixSortTest, LongStridedAndSplitRows) {
  uint32_t seed = 100;
  for (const char* direction : {"LT", "GT"}) {
    ExpectRadixForms(BF16, {2, 4097}, 1, direction, true, true, seed);
    ExpectRadixForms(F16, {257, 6}, 0, direction, false, true, seed);
  }
  std::vector<Literal> arguments;
  arguments.push_back(Keys16(BF16, {13, 4000}, true, 7));
  ExpectSameBits(RadixModule(BF16, {13, 4000}, 1, "LT", false, {}, {0}),
                 arguments);
}

// Every bf16 and f16 pattern, shuffled into 16 rows of 4096 (four groups
// of four), sorting the keys alone.
TEST(RadixSortTest, EverySixteenBitPattern) {
  for (PrimitiveType type : {BF16, F16}) {
    std::vector<uint16_t> patterns(65536);
    std::iota(patterns.begin(), patterns.end(), 0);
    std::shuffle(patterns.begin(), patterns.end(), std::mt19937(11));
    Literal x(ShapeUtil::MakeShape(type, {16, 4096}));
    std::memcpy(x.untyped_data(), patterns.data(), 2 * 65536);
    std::vector<Literal> arguments;
    arguments.push_back(std::move(x));
    ExpectSameBits(RadixModule(type, {16, 4096}, 1, type == BF16 ? "LT" : "GT",
                               true, {}, {0}),
                   arguments);
  }
}

// bf16 keys in TOTALORDER, ascending: NaNs of the sign bit set (larger
// payloads first), -inf, -1, a negative denormal, -0, +0, a denormal, 1,
// +inf, NaNs (smaller payloads first).
const uint16_t kTotalOrder[] = {0xffc0, 0xff81, 0xff80, 0xbf80, 0x8001, 0x8000,
                                0x0000, 0x0001, 0x3f80, 0x7f80, 0x7f81, 0x7fc0};

// Sorts rows of 300 of those keys, many times each, carrying each
// element's position as a u16 payload, and checks the positions against
// std::stable_sort by `rank` (ascending for LT, descending for GT):
// equal keys must keep their order, whichever the direction.
void ExpectStableOrder(const std::string& comparator, const char* direction,
                       const std::vector<int>& rank) {
  constexpr int64_t kRows = 3, kRow = 300;
  Literal x(ShapeUtil::MakeShape(BF16, {kRows, kRow}));
  Literal positions(ShapeUtil::MakeShape(U16, {kRows, kRow}));
  uint16_t* keys = static_cast<uint16_t*>(x.untyped_data());
  uint16_t* payload = static_cast<uint16_t*>(positions.untyped_data());
  std::mt19937 random(5);
  std::vector<int> classes(kRows * kRow);
  for (int64_t i = 0; i < kRows * kRow; ++i) {
    classes[i] = random() % std::size(kTotalOrder);
    keys[i] = kTotalOrder[classes[i]];
    payload[i] = i % kRow;
  }
  std::vector<uint16_t> expected(kRows * kRow);
  for (int64_t r = 0; r < kRows; ++r) {
    std::vector<uint16_t> order(kRow);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      const int ra = rank[classes[r * kRow + a]];
      const int rb = rank[classes[r * kRow + b]];
      return std::string(direction) == "LT" ? ra < rb : ra > rb;
    });
    std::copy(order.begin(), order.end(), expected.begin() + r * kRow);
  }
  const std::string text = absl::StrCat(
      "HloModule stable\n",
      absl::StrReplaceAll(comparator, {{"$D", direction}}), R"(ENTRY main {
  x = bf16[3,300] parameter(0)
  y = u16[3,300] parameter(1)
  s = (bf16[3,300], u16[3,300]) sort(x, y), dimensions={1}, to_apply=cmp
  ROOT p = u16[3,300] get-tuple-element(s), index=1
})");
  SCOPED_TRACE(text);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(*module, {}));
  std::vector<Literal> arguments;
  arguments.push_back(std::move(x));
  arguments.push_back(std::move(positions));
  ASSERT_OK_AND_ASSIGN(
      std::vector<Literal> results,
      RunAtThreadCounts(*executable, Pointers(arguments), {1, 2, 3}));
  for (size_t i = 0; i < results.size(); ++i) {
    const uint16_t* got =
        static_cast<const uint16_t*>(results[i].untyped_data());
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), got))
        << "threads " << i + 1;
  }
}

TEST(RadixSortTest, StableAndNansInTotalOrder) {
  const std::string total_order = R"(cmp {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  i = u16[] parameter(2)
  j = u16[] parameter(3)
  ROOT c = pred[] compare(a, b), direction=$D, type=TOTALORDER
}
)";
  std::vector<int> rank(std::size(kTotalOrder));
  std::iota(rank.begin(), rank.end(), 0);
  for (const char* direction : {"LT", "GT"}) {
    ExpectStableOrder(total_order, direction, rank);
  }
  // JAX's comparator: -0 is +0, and every NaN is +NaN, above +inf.
  const std::string jax = R"(cmp {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  i = u16[] parameter(2)
  j = u16[] parameter(3)
  nan = bf16[] constant(nan)
  zero = bf16[] constant(0)
  a_nan = pred[] compare(a, a), direction=NE
  a_zero = pred[] compare(a, zero), direction=EQ
  a0 = bf16[] select(a_zero, zero, a)
  ga = bf16[] select(a_nan, nan, a0)
  b_nan = pred[] compare(b, b), direction=NE
  b_zero = pred[] compare(b, zero), direction=EQ
  b0 = bf16[] select(b_zero, zero, b)
  gb = bf16[] select(b_nan, nan, b0)
  ROOT c = pred[] compare(ga, gb), direction=$D, type=TOTALORDER
}
)";
  const std::vector<int> jax_rank = {9, 9, 0, 1, 2, 3, 3, 4, 5, 6, 9, 9};
  for (const char* direction : {"LT", "GT"}) {
    ExpectStableOrder(jax, direction, jax_rank);
  }
}

}  // namespace
}  // namespace mxla
