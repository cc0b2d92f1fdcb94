// RunScratchPool: runs in flight at once get distinct scratches, a given
// back scratch is reused rather than remade, and an arena that cannot be
// allocated is ResourceExhausted.
#include "runtime/run_scratch.h"

#include <set>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"

// Under ASan, a failed huge allocation returns null as it does in release
// builds, rather than aborting the test.
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1";
}

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

TEST(RunScratchPoolTest, ScratchesInFlightAreDistinctAndReused) {
  RunScratchPool pool(/*arena_bytes=*/4096, /*max_pointers=*/5);
  std::set<RunScratch*> made;
  {
    std::vector<RunScratchPool::Lease> leases;
    for (int i = 0; i < 3; ++i) {
      ASSERT_OK_AND_ASSIGN(RunScratchPool::Lease lease, pool.Take());
      EXPECT_NE(lease->arena, nullptr);
      EXPECT_EQ(lease->pointers.size(), 5u);
      made.insert(&*lease);
      leases.push_back(std::move(lease));
    }
    EXPECT_EQ(made.size(), 3u);
  }
  // All three were given back: three more leases reuse exactly them.
  std::vector<RunScratchPool::Lease> again;
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(RunScratchPool::Lease lease, pool.Take());
    EXPECT_TRUE(made.count(&*lease)) << i;
    again.push_back(std::move(lease));
  }
  ASSERT_OK_AND_ASSIGN(RunScratchPool::Lease fourth, pool.Take());
  EXPECT_FALSE(made.count(&*fourth));
}

TEST(RunScratchPoolTest, NoArenaForZeroBytes) {
  RunScratchPool pool(0, 2);
  ASSERT_OK_AND_ASSIGN(RunScratchPool::Lease lease, pool.Take());
  EXPECT_EQ(lease->arena, nullptr);
  EXPECT_EQ(lease->pointers.size(), 2u);
}

TEST(RunScratchPoolTest, AnArenaTooLargeIsResourceExhausted) {
  RunScratchPool pool(int64_t{1} << 60, 2);
  EXPECT_THAT(pool.Take(),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("cannot allocate 1152921504606846976 bytes "
                                 "of temporaries")));
  // The failure leaves the pool working.
  EXPECT_THAT(pool.Take(), StatusIs(absl::StatusCode::kResourceExhausted,
                                    HasSubstr("temporaries")));
}

}  // namespace
}  // namespace mxla
