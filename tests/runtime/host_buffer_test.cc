// runtime/host_buffer.h: alignment, reuse of freed large and medium buffers,
// and the bounds on what the pools keep.
#include "runtime/host_buffer.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "ir/literal.h"

namespace mxla {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

uintptr_t Address(const HostBuffer& buffer) {
  return reinterpret_cast<uintptr_t>(buffer.get());
}

TEST(HostBufferTest, SmallBuffersAreCacheLineAligned) {
  for (int64_t bytes : {int64_t{0}, int64_t{1}, int64_t{63}, int64_t{64},
                        int64_t{1000}, 2 * kMiB - 1}) {
    HostBuffer buffer = AllocateHostBuffer(bytes);
    ASSERT_NE(buffer, nullptr) << bytes;
    EXPECT_EQ(Address(buffer) % 64, 0u) << bytes;
  }
  HostBuffer a = AllocateHostBuffer(0), b = AllocateHostBuffer(0);
  EXPECT_NE(a.get(), b.get());
}

TEST(HostBufferTest, LargeBuffersAreHugePageAlignedAndReused) {
  const int64_t before = PooledHostBufferBytes();
  HostBuffer first = AllocateHostBuffer(3 * kMiB + 5);  // padded to 4 MiB
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(Address(first) % (2 * kMiB), 0u);
  first[3 * kMiB] = 42;  // touch it
  const uint8_t* address = first.get();
  first.reset();
  EXPECT_EQ(PooledHostBufferBytes(), before + 4 * kMiB);
  // Same padded size: the same memory comes back, warm.
  HostBuffer again = AllocateHostBuffer(4 * kMiB);
  EXPECT_EQ(again.get(), address);
  EXPECT_EQ(PooledHostBufferBytes(), before);
  // Another size does not take it.
  again.reset();
  HostBuffer other = AllocateHostBuffer(6 * kMiB);
  EXPECT_NE(other.get(), address);
  EXPECT_EQ(PooledHostBufferBytes(), before + 4 * kMiB);
}

TEST(HostBufferTest, ThePoolKeepsAtMostItsBound) {
  // Untouched buffers cost address space only.
  std::vector<HostBuffer> buffers;
  const int64_t size = 64 * kMiB;
  for (int64_t i = 0; i <= kHostBufferPoolBytes / size; ++i) {
    buffers.push_back(AllocateHostBuffer(size));
    ASSERT_NE(buffers.back(), nullptr);
  }
  buffers.clear();
  const int64_t large = PooledHostBufferBytes() - PooledMediumHostBufferBytes();
  EXPECT_LE(large, kHostBufferPoolBytes);
  EXPECT_GE(large, kHostBufferPoolBytes - size);
}

// Medium buffers (64 KiB to 2 MiB), which glibc would hand back to the
// kernel, come back warm too, from a pool of their own with its own bound.
TEST(HostBufferTest, MediumBuffersAreReusedWithinTheirBound) {
  const int64_t before = PooledMediumHostBufferBytes();
  HostBuffer first = AllocateHostBuffer(kMiB + 5);  // padded to 1 MiB + 64 KiB
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(Address(first) % 64, 0u);
  first[kMiB] = 42;
  const uint8_t* address = first.get();
  first.reset();
  EXPECT_EQ(PooledMediumHostBufferBytes(), before + kMiB + 64 * 1024);
  HostBuffer again = AllocateHostBuffer(kMiB + 64 * 1024);
  EXPECT_EQ(again.get(), address);
  EXPECT_EQ(PooledMediumHostBufferBytes(), before);
  again.reset();
  HostBuffer other = AllocateHostBuffer(kMiB / 2);
  EXPECT_NE(other.get(), address);
  // Below 64 KiB nothing is pooled.
  HostBuffer small = AllocateHostBuffer(64 * 1024 - 1);
  const int64_t with_small = PooledMediumHostBufferBytes();
  small.reset();
  EXPECT_EQ(PooledMediumHostBufferBytes(), with_small);
  std::vector<HostBuffer> many;
  for (int64_t i = 0; i <= kMediumHostBufferPoolBytes / kMiB; ++i) {
    many.push_back(AllocateHostBuffer(kMiB));
  }
  many.clear();
  EXPECT_LE(PooledMediumHostBufferBytes(), kMediumHostBufferPoolBytes);
  EXPECT_GE(PooledMediumHostBufferBytes(), kMediumHostBufferPoolBytes - kMiB);
}

// A pool full of old buffers still keeps a newly freed one, so a result
// allocated on every call keeps coming back warm (this once cost 15x on a
// softmax run after larger workloads had filled the pool).
TEST(HostBufferTest, AFullPoolMakesRoomForTheNewestBuffer) {
  std::vector<HostBuffer> old;
  for (int64_t i = 0; i < kHostBufferPoolBytes / (64 * kMiB); ++i) {
    old.push_back(AllocateHostBuffer(64 * kMiB));
  }
  old.clear();
  const int64_t medium = PooledMediumHostBufferBytes();
  ASSERT_EQ(PooledHostBufferBytes(), kHostBufferPoolBytes + medium);
  HostBuffer result = AllocateHostBuffer(16 * kMiB);
  const uint8_t* address = result.get();
  result.reset();
  EXPECT_EQ(PooledHostBufferBytes(),
            kHostBufferPoolBytes - 48 * kMiB + medium);
  HostBuffer again = AllocateHostBuffer(16 * kMiB);
  EXPECT_EQ(again.get(), address);
  // A buffer larger than the whole bound is never kept.
  HostBuffer huge = AllocateHostBuffer(kHostBufferPoolBytes + 2 * kMiB);
  ASSERT_NE(huge, nullptr);
  const int64_t before = PooledHostBufferBytes();
  huge.reset();
  EXPECT_EQ(PooledHostBufferBytes(), before);
}

TEST(HostBufferTest, LiteralsAreZeroedEvenOnReusedMemory) {
  const Shape shape = ShapeUtil::MakeShape(F32, {1024, 1024});  // 4 MiB
  {
    Literal dirty = Literal::ForOverwrite(shape, PooledHostAllocator());
    for (float& x : dirty.data<float>()) x = 7;
  }
  Literal clean(shape, PooledHostAllocator());
  for (float x : clean.data<float>()) ASSERT_EQ(x, 0.0f);
}

// ir's default allocation never reaches the runtime's pool.
TEST(HostBufferTest, LiteralsOutsideTheRuntimeAreNotPooled) {
  const Shape shape = ShapeUtil::MakeShape(F32, {1024, 1024});  // 4 MiB
  const int64_t before = PooledHostBufferBytes();
  { Literal plain(shape); }
  EXPECT_EQ(PooledHostBufferBytes(), before);
  // Copies keep their source's allocator: a freed copy's memory is the
  // pool's newest 4 MiB buffer, the next one handed out (this holds even
  // when earlier tests left the pool full, where its total cannot grow).
  Literal pooled(shape, PooledHostAllocator());
  const void* copied = nullptr;
  {
    Literal copy = pooled;
    copied = copy.untyped_data();
  }
  HostBuffer next = AllocateHostBuffer(4 * kMiB);
  EXPECT_EQ(next.get(), copied);
}

}  // namespace
}  // namespace mxla
