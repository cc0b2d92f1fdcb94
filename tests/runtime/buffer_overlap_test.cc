// HasForbiddenOverlap, the check behind RunBuffers' overlap errors (pair
// by pair for up to 16 results, in address order beyond), against every
// pair compared by hand: on hand-made cases (a donated result, arguments
// sharing memory, empty buffers, touching ends), and on random layouts of
// up to 20 arguments and 20 results in a small arena, where overlaps are
// common.
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/buffer_leaves.h"

namespace mxla {
namespace {

struct Layout {
  std::vector<const void*> arguments;
  std::vector<int64_t> argument_sizes;
  std::vector<void*> results;
  std::vector<int64_t> result_sizes;
  std::vector<int64_t> donated;  // per result
};

bool Intersect(const void* a, int64_t a_bytes, const void* b,
               int64_t b_bytes) {
  const auto* x = static_cast<const char*>(a);
  const auto* y = static_cast<const char*>(b);
  return a_bytes > 0 && b_bytes > 0 && x < y + b_bytes && y < x + a_bytes;
}

// The rule, pair by pair.
bool ForbiddenByEveryPair(const Layout& l) {
  std::vector<bool> donated_argument(l.arguments.size(), false);
  for (int64_t a : l.donated) {
    if (a >= 0) donated_argument[a] = true;
  }
  for (size_t a = 0; a < l.arguments.size(); ++a) {
    for (size_t b = 0; b < a; ++b) {
      if ((donated_argument[a] || donated_argument[b]) &&
          Intersect(l.arguments[a], l.argument_sizes[a], l.arguments[b],
                    l.argument_sizes[b])) {
        return true;
      }
    }
  }
  for (size_t r = 0; r < l.results.size(); ++r) {
    for (size_t a = 0; a < l.arguments.size(); ++a) {
      if (l.donated[r] != static_cast<int64_t>(a) &&
          Intersect(l.results[r], l.result_sizes[r], l.arguments[a],
                    l.argument_sizes[a])) {
        return true;
      }
    }
    for (size_t s = 0; s < r; ++s) {
      if (Intersect(l.results[r], l.result_sizes[r], l.results[s],
                    l.result_sizes[s])) {
        return true;
      }
    }
  }
  return false;
}

bool Forbidden(const Layout& l) {
  return HasForbiddenOverlap(l.arguments, l.argument_sizes, l.results,
                             l.result_sizes, l.donated);
}

TEST(BufferOverlapTest, HandMadeCases) {
  char arena[64];
  // Disjoint, touching at their ends.
  Layout disjoint{{arena, arena + 8}, {8, 8}, {arena + 16}, {8}, {-1}};
  EXPECT_FALSE(Forbidden(disjoint));
  // A result that is the argument it donates.
  Layout donation{{arena, arena + 8}, {8, 8}, {arena}, {8}, {0}};
  EXPECT_FALSE(Forbidden(donation));
  // ... but not one it does not donate.
  Layout undonated = donation;
  undonated.donated = {-1};
  EXPECT_TRUE(Forbidden(undonated));
  // Arguments may share memory, unless one of them is donated (then the
  // other overlaps the result that is the donated one).
  Layout shared{{arena, arena + 4}, {8, 8}, {arena + 32}, {8}, {-1}};
  EXPECT_FALSE(Forbidden(shared));
  Layout shared_donated{{arena, arena + 4}, {8, 8}, {arena}, {8}, {0}};
  EXPECT_TRUE(Forbidden(shared_donated));
  Layout later_donated{{arena + 4, arena}, {8, 8}, {arena}, {8}, {1}};
  EXPECT_TRUE(Forbidden(later_donated));
  // Two results in one byte.
  Layout results{{}, {}, {arena, arena + 7}, {8, 8}, {-1, -1}};
  EXPECT_TRUE(Forbidden(results));
  // Empty buffers overlap nothing, wherever they point.
  Layout empty{{arena}, {8}, {arena, arena + 4}, {0, 0}, {-1, -1}};
  EXPECT_FALSE(Forbidden(empty));
}

// A long range opened early still meets a range that starts after many
// shorter ones have closed (with enough results for the address-order
// sweep, not the pairwise check of a few).
TEST(BufferOverlapTest, ALongArgumentMeetsALateResult) {
  static char arena[256], elsewhere[256];
  Layout l;
  l.arguments.push_back(arena);
  l.argument_sizes.push_back(256);
  for (int i = 0; i < 8; ++i) {
    l.arguments.push_back(arena + 16 * i);
    l.argument_sizes.push_back(8);
  }
  for (int i = 0; i < 20; ++i) {
    l.results.push_back(elsewhere + 8 * i);
    l.result_sizes.push_back(8);
    l.donated.push_back(-1);
  }
  EXPECT_FALSE(Forbidden(l));
  EXPECT_FALSE(ForbiddenByEveryPair(l));
  l.results.push_back(arena + 200);
  l.result_sizes.push_back(8);
  l.donated.push_back(-1);
  EXPECT_TRUE(Forbidden(l));
  EXPECT_TRUE(ForbiddenByEveryPair(l));
}

TEST(BufferOverlapTest, AgreesWithEveryPairOnRandomLayouts) {
  std::mt19937 random(20261129);
  static char arena[512];
  int forbidden = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const int arguments = std::uniform_int_distribution<int>(0, 20)(random);
    const int results = std::uniform_int_distribution<int>(0, 20)(random);
    // Mostly sparse layouts (few overlaps), some dense ones.
    const int span = trial % 3 == 0 ? 64 : 512;
    auto place = [&](int64_t& bytes) {
      bytes = std::uniform_int_distribution<int>(0, 24)(random);
      const int at = std::uniform_int_distribution<int>(
          0, span - static_cast<int>(bytes))(random);
      return arena + at;
    };
    Layout l;
    for (int a = 0; a < arguments; ++a) {
      int64_t bytes;
      l.arguments.push_back(place(bytes));
      l.argument_sizes.push_back(bytes);
    }
    for (int r = 0; r < results; ++r) {
      int64_t bytes;
      void* data = place(bytes);
      int64_t donated = -1;
      // Now and then a result donates a distinct argument: its buffer.
      if (arguments > r && random() % 4 == 0) {
        donated = r;
        data = const_cast<void*>(l.arguments[r]);
        bytes = l.argument_sizes[r];
      }
      l.results.push_back(data);
      l.result_sizes.push_back(bytes);
      l.donated.push_back(donated);
    }
    const bool expected = ForbiddenByEveryPair(l);
    forbidden += expected;
    ASSERT_EQ(Forbidden(l), expected) << "trial " << trial;
  }
  // Both answers were drawn often.
  EXPECT_GT(forbidden, 2000);
  EXPECT_LT(forbidden, 18000);
}

}  // namespace
}  // namespace mxla
