// .npz archives (runtime/npz.h): the CRC-32 of the zip format, archives that
// read back member by member, a tuple's arrays named by index path, and
// malformed archives as clear errors. tests/lit/tools/run_npz.hlo checks
// that NumPy reads what `mxla run -o` writes.
#include "runtime/npz.h"

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/npy.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

TEST(NpzTest, Crc32MatchesTheStandardCheckValues) {
  EXPECT_EQ(Crc32(""), 0u);
  EXPECT_EQ(Crc32("123456789"), 0xCBF43926u);  // the catalogue's check
  EXPECT_EQ(Crc32("The quick brown fox jumps over the lazy dog"), 0x414FA339u);
}

std::vector<ZipMember> SampleMembers() {
  return {{"0.npy", "first"}, {"1.0.npy", std::string(1000, '\xab')},
          {"empty.npy", ""}};
}

TEST(NpzTest, ZipRoundTripsWithFixedLayout) {
  ASSERT_OK_AND_ASSIGN(std::string zip, SerializeZip(SampleMembers()));
  // Local header, then the stored bytes, for each member; the central
  // directory; the end record (22 bytes, no comment).
  EXPECT_EQ(zip.substr(0, 4), "PK\x03\x04");
  EXPECT_EQ(zip.substr(30, 5 + 5), "0.npyfirst");
  EXPECT_EQ(zip.substr(zip.size() - 22, 4), "PK\x05\x06");
  const size_t local_bytes = 3 * 30 + (5 + 7 + 9) + (5 + 1000 + 0);
  const size_t central_bytes = 3 * 46 + (5 + 7 + 9);
  EXPECT_EQ(zip.size(), local_bytes + central_bytes + 22);
  ASSERT_OK_AND_ASSIGN(std::vector<ZipMember> members, ParseZip(zip));
  ASSERT_EQ(members.size(), 3u);
  for (size_t i = 0; i < members.size(); ++i) {
    EXPECT_EQ(members[i].name, SampleMembers()[i].name);
    EXPECT_EQ(members[i].bytes, SampleMembers()[i].bytes);
  }
  ASSERT_OK_AND_ASSIGN(std::string empty, SerializeZip({}));
  EXPECT_EQ(empty.size(), 22u);
  ASSERT_OK_AND_ASSIGN(std::vector<ZipMember> none, ParseZip(empty));
  EXPECT_TRUE(none.empty());
}

TEST(NpzTest, MalformedArchivesAreErrors) {
  ASSERT_OK_AND_ASSIGN(std::string zip, SerializeZip(SampleMembers()));
  for (size_t size = 0; size < zip.size(); ++size) {
    EXPECT_THAT(ParseZip(zip.substr(0, size)).status(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("malformed .npz")))
        << "truncated to " << size;
  }
  // A flipped byte of a member's data fails its CRC-32: the second
  // member's data starts after the first (30 + 5 + 5 bytes) and its own
  // header and name (30 + 7).
  const size_t data = 40 + 37;
  for (size_t at = data; at < data + 1000; at += 37) {
    std::string corrupt = zip;
    corrupt[at] ^= 0x10;
    EXPECT_THAT(ParseZip(corrupt).status(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("fails its CRC-32 check")));
  }
  // A deflated member (numpy.savez_compressed): method 8.
  std::string deflated = zip;
  const size_t central = zip.size() - 22 - (3 * 46 + 21);
  deflated[central + 10] = 8;
  EXPECT_THAT(ParseZip(deflated).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("member '0.npy' is compressed (method 8); "
                                 "mxla reads stored members only: save with "
                                 "numpy.savez, not numpy.savez_compressed")));
}

Literal NestedResult() {
  std::vector<Literal> inner;
  inner.push_back(LiteralUtil::CreateR2<int32_t>({{1, 2}, {3, 4}}));
  inner.push_back(Literal(Shape(TOKEN, {})));
  inner.push_back(LiteralUtil::CreateR1<double>({0.25}));
  std::vector<Literal> outer;
  outer.push_back(LiteralUtil::CreateR1<float>({1.5f, -2}));
  outer.push_back(LiteralUtil::MakeTuple(std::move(inner)));
  outer.push_back(LiteralUtil::MakeTuple({}));
  outer.push_back(Literal(ShapeUtil::MakeShape(F32, {0})));
  return LiteralUtil::MakeTuple(std::move(outer));
}

TEST(NpzTest, ArraysAreNamedByIndexPathAndTokensLeftOut) {
  const Literal result = NestedResult();
  std::vector<std::string> names;
  for (const auto& [name, leaf] : ArrayLeaves(result)) names.push_back(name);
  EXPECT_THAT(names, ::testing::ElementsAre("0", "1.0", "1.2", "3"));
  const Literal array = LiteralUtil::CreateR0<float>(7);
  ASSERT_EQ(ArrayLeaves(array).size(), 1u);
  EXPECT_EQ(ArrayLeaves(array)[0].first, "0");
  EXPECT_EQ(ArrayLeaves(array)[0].second, &array);
}

TEST(NpzTest, NpzHoldsEachArrayAsNpy) {
  const Literal result = NestedResult();
  ASSERT_OK_AND_ASSIGN(std::string npz, SerializeNpz(result));
  ASSERT_OK_AND_ASSIGN(std::vector<ZipMember> members, ParseZip(npz));
  const auto leaves = ArrayLeaves(result);
  ASSERT_EQ(members.size(), leaves.size());
  for (size_t i = 0; i < members.size(); ++i) {
    EXPECT_EQ(members[i].name, leaves[i].first + ".npy");
    ASSERT_OK_AND_ASSIGN(Literal parsed, ParseNpy(members[i].bytes));
    EXPECT_EQ(parsed, *leaves[i].second);
  }

  const std::string path = ::testing::TempDir() + "/npz_test.npz";
  ASSERT_OK(WriteNpzFile(path, result));
  ASSERT_OK_AND_ASSIGN(Literal named, ReadNpzMember(path, "1.0"));
  EXPECT_EQ(named, LiteralUtil::CreateR2<int32_t>({{1, 2}, {3, 4}}));
  ASSERT_OK_AND_ASSIGN(Literal with_suffix, ReadNpzMember(path, "1.2.npy"));
  EXPECT_EQ(with_suffix, LiteralUtil::CreateR1<double>({0.25}));
  EXPECT_THAT(ReadNpzMember(path, "2").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(path + " has no array '2' (it holds 0, 1.0, "
                                        "1.2, 3)")));
  EXPECT_THAT(ReadNpzMember(path, "").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(path + " holds 4 arrays (0, 1.0, 1.2, 3): "
                                        "name one as " + path + ":NAME")));
  EXPECT_THAT(ReadNpzMember("/nonexistent.npz", "0").status(),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("cannot open '/nonexistent.npz'")));
  // An archive opened once gives every member, as ReadNpzMember does.
  ASSERT_OK_AND_ASSIGN(NpzArchive archive, NpzArchive::Open(path));
  for (const auto& [name, leaf] : leaves) {
    ASSERT_OK_AND_ASSIGN(Literal member, archive.Member(name));
    EXPECT_EQ(member, *leaf) << name;
  }
  EXPECT_THAT(archive.Member("2").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(path + " has no array '2'")));
  EXPECT_THAT(NpzArchive::Open("/nonexistent.npz").status(),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("cannot open '/nonexistent.npz'")));

  const std::string directory = ::testing::TempDir() + "/npz_test_dir";
  std::filesystem::remove_all(directory);
  ASSERT_OK(WriteNpyDirectory(directory, result));
  for (const auto& [name, leaf] : leaves) {
    ASSERT_OK_AND_ASSIGN(Literal read,
                         ReadNpyFile(directory + "/" + name + ".npy"));
    EXPECT_EQ(read, *leaf) << name;
  }
}

}  // namespace
}  // namespace mxla
