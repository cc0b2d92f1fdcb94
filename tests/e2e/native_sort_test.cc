// The JIT's native sort (runtime/native_sort.h) against the interpreter,
// which calls the comparator per comparison (semantics/sort_rows.h): every
// native key type, LT and GT, TOTALORDER and the default float compare,
// with duplicates (stability), -0 and +0, infinities and NaNs of both
// signs and several payloads; rows short and long, every 16-bit float
// pattern, a key on a later operand, a non-minor dimension, empty rows and
// rows of 1; JAX's canonicalizing comparators (hoist-sort-keys), and top-k
// with ties. Same bits at 1, 2 and 3 threads.
#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "runtime/jit_executable.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::MatchesInterpreterAtThreadCounts;
using ::mxla::testing::Pointers;

bool IsFloat(PrimitiveType type) {
  return type == F16 || type == BF16 || type == F32 || type == F64;
}

// Bit patterns worth sorting: zeros of both signs, +-1, +-2, 0.5, the
// infinities, the smallest denormal, then NaNs (both signs, quiet and
// signalling, two payloads); small integers and the extremes.
std::vector<uint64_t> Pool(PrimitiveType type, bool nans) {
  switch (type) {
    case F32: {
      std::vector<uint64_t> pool = {0,          0x80000000, 0x3f800000,
                                    0xbf800000, 0x40000000, 0xc0000000,
                                    0x3f000000, 0x7f800000, 0xff800000, 1};
      if (nans) pool.insert(pool.end(), {0x7fc00000, 0xffc00000, 0x7f800001,
                                         0x7fc00001});
      return pool;
    }
    case BF16: {
      std::vector<uint64_t> pool = {0,      0x8000, 0x3f80, 0xbf80, 0x4000,
                                    0xc000, 0x3f00, 0x7f80, 0xff80, 1};
      if (nans) pool.insert(pool.end(), {0x7fc0, 0xffc0, 0x7f81, 0x7fc1});
      return pool;
    }
    case F16: {
      std::vector<uint64_t> pool = {0,      0x8000, 0x3c00, 0xbc00, 0x4000,
                                    0xc000, 0x3800, 0x7c00, 0xfc00, 1};
      if (nans) pool.insert(pool.end(), {0x7e00, 0xfe00, 0x7c01, 0x7e01});
      return pool;
    }
    case F64: {
      std::vector<uint64_t> pool = {
          0, 0x8000000000000000, 0x3ff0000000000000, 0xbff0000000000000,
          0x4000000000000000, 0xc000000000000000, 0x3fe0000000000000,
          0x7ff0000000000000, 0xfff0000000000000, 1};
      if (nans) {
        pool.insert(pool.end(), {0x7ff8000000000000, 0xfff8000000000000,
                                 0x7ff0000000000001, 0x7ff8000000000001});
      }
      return pool;
    }
    case PRED:
      return {0, 1};
    default: {
      const int bits = 8 * primitive_util::ByteWidth(type);
      const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
      std::vector<uint64_t> pool = {0, 1, 2, 3, mask, mask - 1, mask - 2,
                                    mask >> 1, (mask >> 1) + 1};
      return pool;
    }
  }
}

bool IsNan(PrimitiveType type, uint64_t bits) {
  switch (type) {
    case F16:
      return (bits & 0x7fff) > 0x7c00;
    case BF16:
      return (bits & 0x7fff) > 0x7f80;
    case F32:
      return (bits & 0x7fffffff) > 0x7f800000;
    case F64:
      return (bits & 0x7fffffffffffffff) > 0x7ff0000000000000;
    default:
      return false;
  }
}

// Two thirds of the elements from Pool (many duplicates), the rest random
// bits (NaNs redrawn unless `nans`).
Literal MakeKeys(PrimitiveType type, std::vector<int64_t> dims, bool nans,
                 uint64_t seed) {
  Literal literal(ShapeUtil::MakeShape(type, dims));
  const std::vector<uint64_t> pool = Pool(type, nans);
  const int64_t width = primitive_util::ByteWidth(type);
  std::mt19937_64 random(seed);
  char* data = static_cast<char*>(literal.untyped_data());
  const int64_t count = literal.size_bytes() / width;
  for (int64_t i = 0; i < count; ++i) {
    uint64_t bits = pool[random() % pool.size()];
    if (type != PRED && random() % 3 == 0) {
      do {
        bits = random();
      } while (!nans && IsNan(type, bits & (width == 8 ? ~uint64_t{0}
                                                       : (uint64_t{1} << (8 * width)) - 1)));
    }
    std::memcpy(data + i * width, &bits, width);  // little-endian
  }
  return literal;
}

// sort(x, iota) along `dimension` of `dims`, x of `type`, by
// compare(x_lhs, x_rhs), direction, [type=TOTALORDER].
std::string KeyIotaSort(PrimitiveType type, const std::vector<int64_t>& dims,
                        int64_t dimension, const std::string& direction,
                        bool total_order) {
  const std::string t(primitive_util::LowercaseName(type));
  const std::string shape = absl::StrCat("[", absl::StrJoin(dims, ","), "]");
  return absl::StrReplaceAll(
      R"(HloModule sort
cmp {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=$D$O
}
ENTRY main {
  x = $T$S parameter(0)
  k = s32$S iota(), iota_dimension=$N
  ROOT s = ($T$S, s32$S) sort(x, k), dimensions={$N}, to_apply=cmp
})",
      {{"$T", t},
       {"$S", shape},
       {"$D", direction},
       {"$O", total_order ? ", type=TOTALORDER" : ""},
       {"$N", absl::StrCat(dimension)}});
}

// The JIT at 1, 2 and 3 threads against the interpreter, bit for bit.
void ExpectSameBits(const std::string& text,
                    const std::vector<Literal>& arguments) {
  SCOPED_TRACE(text.substr(0, 400));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  EXPECT_TRUE(MatchesInterpreterAtThreadCounts(*module, Pointers(arguments),
                                               {1, 2, 3}));
}

// The compiled module's sort steps, in program order (their subprograms
// stay alive with the executable they return with).
struct SortSteps {
  std::unique_ptr<Executable> executable;
  std::vector<const JitExecutable::Program::Sort*> sorts;
};
SortSteps CompiledSorts(const std::string& text) {
  SortSteps result;
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  result.executable = Compile(*module, {}).value();
  const auto* jit = dynamic_cast<const JitExecutable*>(result.executable.get());
  if (jit == nullptr) return result;
  for (const auto& step : jit->program()->steps) {
    if (step.subprogram == nullptr) continue;
    if (const auto* sort =
            std::get_if<JitExecutable::Program::Sort>(step.subprogram.get())) {
      result.sorts.push_back(sort);
    }
  }
  return result;
}

// Whether the compiled module's sorts all run natively.
bool SortsNatively(const std::string& text) {
  const SortSteps steps = CompiledSorts(text);
  for (const auto* sort : steps.sorts) {
    if (sort->native == nullptr) return false;
  }
  return !steps.sorts.empty();
}

TEST(NativeSortTest, EveryKeyTypeDirectionAndComparison) {
  uint64_t seed = 1;
  for (PrimitiveType type : {PRED, S8, S16, S32, S64, U8, U16, U32, U64, F16,
                             BF16, F32, F64}) {
    for (const char* direction : {"LT", "GT"}) {
      for (bool total_order : {false, true}) {
        if (total_order && !IsFloat(type)) continue;
        for (bool nans : {false, true}) {
          if (nans && !IsFloat(type)) continue;
          // Rows of 150 take the radix sort; rows of 9 a comparison sort.
          for (const std::vector<int64_t>& dims :
               std::vector<std::vector<int64_t>>{{4, 150}, {3, 9}}) {
            const std::string text =
                KeyIotaSort(type, dims, 1, direction, total_order);
            std::vector<Literal> arguments;
            arguments.push_back(MakeKeys(type, dims, nans, ++seed));
            ExpectSameBits(text, arguments);
          }
        }
      }
    }
    EXPECT_TRUE(SortsNatively(KeyIotaSort(type, {2, 3}, 1, "LT", false)))
        << primitive_util::LowercaseName(type);
  }
}

// Every bf16 and f16 pattern in one shuffled row (65536: the longest row
// packed in 32 bits), and a longer bf16 row packed in 64.
TEST(NativeSortTest, EverySixteenBitFloatPattern) {
  for (PrimitiveType type : {BF16, F16}) {
    for (bool total_order : {true, false}) {
      std::vector<uint16_t> patterns(65536);
      for (int i = 0; i < 65536; ++i) patterns[i] = i;
      std::shuffle(patterns.begin(), patterns.end(), std::mt19937(7));
      Literal x(ShapeUtil::MakeShape(type, {1, 65536}));
      std::memcpy(x.untyped_data(), patterns.data(), 2 * 65536);
      std::vector<Literal> arguments;
      arguments.push_back(std::move(x));
      ExpectSameBits(KeyIotaSort(type, {1, 65536}, 1, "LT", total_order),
                     arguments);
    }
  }
  std::vector<Literal> arguments;
  arguments.push_back(MakeKeys(BF16, {1, 70000}, true, 3));
  ExpectSameBits(KeyIotaSort(BF16, {1, 70000}, 1, "GT", true), arguments);
}

// Enough rows to be split over threads; NaN rows under the default compare
// take std::stable_sort.
TEST(NativeSortTest, ManyRowsOverThreads) {
  for (bool total_order : {true, false}) {
    std::vector<Literal> arguments;
    arguments.push_back(MakeKeys(F32, {24, 2048}, true, 9));
    ExpectSameBits(KeyIotaSort(F32, {24, 2048}, 1, "LT", total_order),
                   arguments);
  }
}

TEST(NativeSortTest, ShapesAndDimensions) {
  struct Case {
    std::vector<int64_t> dims;
    int64_t dimension;
  };
  for (const Case& c : std::vector<Case>{{{40, 3}, 0},
                                         {{4, 70, 3}, 1},
                                         {{4, 70, 3}, 0},
                                         {{0, 5}, 1},
                                         {{5, 0}, 1},
                                         {{7, 1}, 1},
                                         {{1, 1}, 0},
                                         {{100}, 0}}) {
    std::vector<Literal> arguments;
    arguments.push_back(MakeKeys(F32, c.dims, true, c.dims.size()));
    ExpectSameBits(KeyIotaSort(F32, c.dims, c.dimension, "GT", true),
                   arguments);
  }
}

// The key is the second of three operands (an f32 and a u8 ride along).
TEST(NativeSortTest, KeyOnALaterOperand) {
  const std::string text = R"(HloModule sort
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = s16[] parameter(2)
  j = s16[] parameter(3)
  c = u8[] parameter(4)
  d = u8[] parameter(5)
  ROOT r = pred[] compare(i, j), direction=LT
}
ENTRY main {
  x = f32[6,300] parameter(0)
  y = s16[6,300] parameter(1)
  z = u8[6,300] parameter(2)
  ROOT s = (f32[6,300], s16[6,300], u8[6,300]) sort(x, y, z), dimensions={1}, to_apply=cmp
})";
  std::vector<Literal> arguments;
  arguments.push_back(MakeKeys(F32, {6, 300}, true, 21));
  arguments.push_back(MakeKeys(S16, {6, 300}, false, 22));
  arguments.push_back(MakeKeys(U8, {6, 300}, false, 23));
  ExpectSameBits(text, arguments);
  EXPECT_TRUE(SortsNatively(text));
}

// JAX's argsort and sort (NaN and -0 canonicalized, TOTALORDER):
// hoist-sort-keys makes them native.
TEST(NativeSortTest, JaxComparators) {
  const std::string comparator = R"(region {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  $EXTRA
  nan = $T[] constant(nan)
  zero = $T[] constant(0)
  a_nan = pred[] compare(a, a), direction=NE
  a_zero = pred[] compare(a, zero), direction=EQ
  a0 = $T[] select(a_zero, zero, a)
  ga = $T[] select(a_nan, nan, a0)
  b_nan = pred[] compare(b, b), direction=NE
  b_zero = pred[] compare(b, zero), direction=EQ
  b0 = $T[] select(b_zero, zero, b)
  gb = $T[] select(b_nan, nan, b0)
  ROOT lt = pred[] compare(ga, gb), direction=$D, type=TOTALORDER
}
)";
  for (PrimitiveType type : {BF16, F32, F16}) {
    for (const char* direction : {"LT", "GT"}) {
      const std::string t(primitive_util::LowercaseName(type));
      const std::string argsort = absl::StrReplaceAll(
          absl::StrCat("HloModule argsort\n", comparator, R"(ENTRY main {
  x = $T[16,512] parameter(0)
  k = s32[16,512] iota(), iota_dimension=1
  s = ($T[16,512], s32[16,512]) sort(x, k), dimensions={1}, is_stable=true, to_apply=region
  ROOT p = s32[16,512] get-tuple-element(s), index=1
})"),
          {{"$EXTRA", "i = s32[] parameter(2)\n  j = s32[] parameter(3)"},
           {"$T", t},
           {"$D", direction}});
      const std::string sort = absl::StrReplaceAll(
          absl::StrCat("HloModule sort\n", comparator, R"(ENTRY main {
  x = $T[8,4096] parameter(0)
  ROOT s = $T[8,4096] sort(x), dimensions={1}, is_stable=true, to_apply=region
})"),
          {{"$EXTRA", ""}, {"$T", t}, {"$D", direction}});
      std::vector<Literal> small, large;
      small.push_back(MakeKeys(type, {16, 512}, true, 31));
      ExpectSameBits(argsort, small);
      EXPECT_TRUE(SortsNatively(argsort));
      EXPECT_TRUE(SortsNatively(sort));
      if (type != BF16) continue;  // the interpreter takes seconds
      large.push_back(MakeKeys(type, {8, 4096}, true, 32));
      ExpectSameBits(sort, large);
    }
  }
}

// Top-k of long rows with many ties, NaNs and both zeros: the first k of
// the stable order, ties by index.
TEST(NativeSortTest, TopKWithTies) {
  for (PrimitiveType type : {BF16, F32, S32}) {
    for (const char* largest : {"true", "false"}) {
      const std::string t(primitive_util::LowercaseName(type));
      const std::string text = absl::StrReplaceAll(R"(HloModule topk
ENTRY main {
  x = $T[3,5000] parameter(0)
  ROOT t = ($T[3,10], s32[3,10]) topk(x), k=10, largest=$L
})",
                                                   {{"$T", t}, {"$L", largest}});
      std::vector<Literal> arguments;
      arguments.push_back(MakeKeys(type, {3, 5000}, true, 41));
      ExpectSameBits(text, arguments);
      EXPECT_TRUE(SortsNatively(text));
    }
  }
}

// The leading elements per row each compiled sort computes (its readers'
// prefix), in program order.
std::vector<int64_t> SortedPrefixes(const std::string& text) {
  std::vector<int64_t> prefixes;
  for (const auto* sort : CompiledSorts(text).sorts) {
    prefixes.push_back(sort->sorted_prefix);
  }
  return prefixes;
}

// A top-k selects its k first results without sorting the row: through a
// heap for a small k, nth_element for a larger one, a full sort when k is
// most of the row. Each is the stable order's first k, NaN rows under the
// default compare included.
TEST(NativeSortTest, TopKSelectsOnlyItsPrefix) {
  for (int64_t k : {1, 10, 64, 65, 300, 4999, 5000}) {
    for (PrimitiveType type : {BF16, F32}) {
      const std::string t(primitive_util::LowercaseName(type));
      const std::string text = absl::StrReplaceAll(R"(HloModule topk
ENTRY main {
  x = $T[4,5000] parameter(0)
  ROOT t = ($T[4,$K], s32[4,$K]) topk(x), k=$K, largest=true
})",
                                                   {{"$T", t},
                                                    {"$K", absl::StrCat(k)}});
      SCOPED_TRACE(absl::StrCat("k=", k, " ", t));
      std::vector<Literal> arguments;
      arguments.push_back(MakeKeys(type, {4, 5000}, true, 7 + k));
      ExpectSameBits(text, arguments);
      EXPECT_THAT(SortedPrefixes(text), ::testing::ElementsAre(k));
    }
  }
}

// Only slices from 0 along the sorted dimension limit what is computed
// (the largest limit); any other reader, or a result the program returns,
// needs whole rows.
TEST(NativeSortTest, ThePrefixIsTheLongestSliceFromZero) {
  const std::string base = R"(HloModule prefix
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = f32[3,200] parameter(0)
  k = s32[3,200] iota(), iota_dimension=1
  s = (f32[3,200], s32[3,200]) sort(x, k), dimensions={1}, to_apply=cmp
  v = f32[3,200] get-tuple-element(s), index=0
  i = s32[3,200] get-tuple-element(s), index=1
  $READERS
})";
  struct Case {
    std::string readers;
    int64_t prefix;
  };
  const std::vector<Case> cases = {
      {"a = f32[3,10] slice(v), slice={[0:3], [0:10]}\n"
       "  b = s32[2,30] slice(i), slice={[1:3], [0:30]}\n"
       "  ROOT t = (f32[3,10], s32[2,30]) tuple(a, b)",
       30},
      {"a = f32[3,10] slice(v), slice={[0:3], [0:10]}\n"
       "  b = s32[3,15] slice(i), slice={[0:3], [5:20]}\n"
       "  ROOT t = (f32[3,10], s32[3,15]) tuple(a, b)",
       200},
      {"a = f32[3,5] slice(v), slice={[0:3], [0:10:2]}\n"
       "  ROOT t = (f32[3,5]) tuple(a)",
       200},
      {"a = f32[3,10] slice(v), slice={[0:3], [0:10]}\n"
       "  n = f32[3,10] negate(a)\n"
       "  ROOT t = (f32[3,10], s32[3,200]) tuple(n, i)",
       200},
  };
  for (const Case& c : cases) {
    const std::string text =
        absl::StrReplaceAll(base, {{"$READERS", c.readers}});
    std::vector<Literal> arguments;
    arguments.push_back(MakeKeys(F32, {3, 200}, false, 3));
    ExpectSameBits(text, arguments);
    EXPECT_THAT(SortedPrefixes(text), ::testing::ElementsAre(c.prefix))
        << text;
  }
}

}  // namespace
}  // namespace mxla
