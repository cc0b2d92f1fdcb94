// .npy reading and writing: every supported dtype round-trips; malformed
// files are clear errors.
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

#include "gtest/gtest.h"
#include "runtime/npy.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

std::string Npy(const Literal& literal) {
  absl::StatusOr<std::string> bytes = SerializeNpy(literal);
  EXPECT_OK(bytes.status());
  return bytes.ok() ? *bytes : "";
}

TEST(NpyTest, RoundTripsEveryType) {
  std::vector<Literal> literals;
  literals.push_back(LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 6}}));
  literals.push_back(LiteralUtil::CreateR1<double>({0.5, -1e300}));
  literals.push_back(LiteralUtil::CreateR1<int32_t>({-7, 8}));
  literals.push_back(LiteralUtil::CreateR0<int64_t>(int64_t{1} << 40));
  literals.push_back(LiteralUtil::CreateR1<bool>({true, false, true}));
  literals.push_back(Literal(ShapeUtil::MakeShape(F32, {0, 3})));
  literals.push_back(LiteralUtil::CreateR1<int8_t>({-128, 127}));
  literals.push_back(LiteralUtil::CreateR1<int16_t>({-32768, 5}));
  literals.push_back(LiteralUtil::CreateR1<uint8_t>({255, 0}));
  literals.push_back(LiteralUtil::CreateR1<uint16_t>({65535, 1}));
  literals.push_back(LiteralUtil::CreateR1<uint32_t>({4294967295u, 2}));
  literals.push_back(LiteralUtil::CreateR1<uint64_t>({~uint64_t{0}, 3}));
  literals.push_back(LiteralUtil::CreateR1<Half>({Half(1.5f), Half(-65504.0f)}));
  for (const Literal& literal : literals) {
    SCOPED_TRACE(literal.ToString());
    std::string bytes = Npy(literal);
    EXPECT_EQ(bytes.find(std::string("\x93NUMPY\x01\x00", 8)), 0u);
    // NumPy aligns the data to 64 bytes.
    EXPECT_EQ((bytes.size() - literal.size_bytes()) % 64, 0u);
    ASSERT_OK_AND_ASSIGN(Literal parsed, ParseNpy(bytes));
    EXPECT_EQ(parsed, literal);
  }
}

TEST(NpyTest, HeaderTextMatchesNumpy) {
  std::string bytes = Npy(LiteralUtil::CreateR1<float>({1, 2, 3}));
  EXPECT_THAT(bytes, HasSubstr("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"));
  std::string scalar = Npy(LiteralUtil::CreateR0<double>(1));
  EXPECT_THAT(scalar, HasSubstr("'shape': (), }"));
  for (auto [literal, descr] :
       std::vector<std::pair<Literal, std::string>>{
           {LiteralUtil::CreateR1<int8_t>({1}), "'|i1'"},
           {LiteralUtil::CreateR1<uint8_t>({1}), "'|u1'"},
           {LiteralUtil::CreateR1<int16_t>({1}), "'<i2'"},
           {LiteralUtil::CreateR1<uint16_t>({1}), "'<u2'"},
           {LiteralUtil::CreateR1<uint32_t>({1}), "'<u4'"},
           {LiteralUtil::CreateR1<uint64_t>({1}), "'<u8'"},
           {LiteralUtil::CreateR1<Half>({Half(1.0f)}), "'<f2'"}}) {
    EXPECT_THAT(Npy(literal), HasSubstr(absl::StrCat("{'descr': ", descr)));
  }
}

// bf16 has no NumPy dtype: its bits go out as <u2 and read back as u16.
TEST(NpyTest, BFloat16IsWrittenAsItsBits) {
  std::string bytes = Npy(LiteralUtil::CreateR1<BFloat16>(
      {BFloat16(1.0f), BFloat16::FromBits(0x7fc0)}));
  EXPECT_THAT(bytes, HasSubstr("{'descr': '<u2'"));
  ASSERT_OK_AND_ASSIGN(Literal parsed, ParseNpy(bytes));
  EXPECT_EQ(parsed, LiteralUtil::CreateR1<uint16_t>({0x3f80, 0x7fc0}));
}

TEST(NpyTest, MalformedFilesAreErrors) {
  std::string good = Npy(LiteralUtil::CreateR1<float>({1, 2, 3}));
  auto expect_error = [](const std::string& bytes, const std::string& message) {
    EXPECT_THAT(ParseNpy(bytes), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr(message)));
  };
  expect_error("", "magic");
  expect_error("PK\x03\x04 not numpy at all", "magic");
  expect_error(good.substr(0, 9), "magic");
  expect_error(good.substr(0, 30), "truncated header");
  expect_error(good.substr(0, good.size() - 1), "needs 12 data bytes, the file has 11");
  expect_error(good + "x", "the file has 13");
  std::string version = good;
  version[6] = 9;
  expect_error(version, "unsupported format version 9");
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string bytes = good;
    bytes.replace(bytes.find(from), from.size(), to);
    return bytes;
  };
  expect_error(replace("<f4", "<c8"), "unsupported dtype '<c8'");
  expect_error(replace("<f4", ">f4"), "unsupported dtype '>f4'");
  expect_error(replace("False", "True "), "Fortran-order");
  expect_error(replace("(3,)", "(x,)"), "bad dimension 'x'");
  expect_error(replace("(3,)", "(-3,)"), "bad dimension '-3'");
  expect_error(replace("'shape'", "'shope'"), "no 'shape' entry");
}

// A version-1.0 file with this header text and data.
std::string MakeNpy(const std::string& header, const std::string& data) {
  std::string bytes("\x93NUMPY\x01\x00", 8);
  bytes.push_back(static_cast<char>(header.size() & 0xff));
  bytes.push_back(static_cast<char>(header.size() >> 8));
  return bytes + header + data;
}

TEST(NpyTest, HugeShapesAreRejectedBeforeAllocation) {
  EXPECT_THAT(ParseNpy(MakeNpy("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (99999999999, 99999999999), }\n",
                               "")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("overflow")));
  EXPECT_THAT(ParseNpy(MakeNpy("{'descr': '<f8', 'fortran_order': False, "
                               "'shape': (1152921504606846976,), }\n",
                               "")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("byte size")));
  ASSERT_OK_AND_ASSIGN(Literal minimal,
                       ParseNpy(MakeNpy("{'descr':'<i4','fortran_order':False,'shape':(1,)}",
                                        std::string("\x05\x00\x00\x00", 4))));
  EXPECT_EQ(minimal, LiteralUtil::CreateR1<int32_t>({5}));
}

// ReadNpyFile reads the header, then the data straight into the array: it
// gives ParseNpy's result for the same bytes, and its errors after the path.
TEST(NpyTest, FilesReadAsTheirBytesParse) {
  const std::string good = Npy(LiteralUtil::CreateR1<float>({1, 2, 3}));
  std::string truthy = Npy(LiteralUtil::CreateR1<bool>({true, false}));
  truthy.back() = 7;  // NumPy would write 1; read as true
  std::string version = good;
  version[6] = 9;
  const std::vector<std::string> cases = {
      good,
      truthy,
      Npy(LiteralUtil::CreateR2<int32_t>({{1, 2}, {3, 4}})),
      Npy(LiteralUtil::CreateR1<float>({})),
      "",
      "\x93NUMPY",
      good.substr(0, 11),
      good.substr(0, 30),
      good.substr(0, good.size() - 1),
      good + "x",
      version,
      MakeNpy("{'descr': '<f4', 'fortran_order': False, "
              "'shape': (99999999999, 99999999999), }\n",
              "")};
  const std::string path =
      absl::StrCat(::testing::TempDir(), "/npy_test_file.npy");
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(absl::StrCat("case ", i));
    {
      std::ofstream file(path, std::ios::binary | std::ios::trunc);
      file.write(cases[i].data(), cases[i].size());
    }
    absl::StatusOr<Literal> parsed = ParseNpy(cases[i]);
    absl::StatusOr<Literal> read = ReadNpyFile(path);
    if (parsed.ok()) {
      ASSERT_OK(read.status());
      EXPECT_EQ(*read, *parsed);
    } else {
      EXPECT_THAT(read, StatusIs(parsed.status().code(),
                                 absl::StrCat(path, ": ",
                                              parsed.status().message())));
    }
  }
  EXPECT_EQ(*ParseNpy(truthy), LiteralUtil::CreateR1<bool>({true, true}));
}

TEST(NpyTest, FileErrorsNameThePath) {
  EXPECT_THAT(ReadNpyFile("/nonexistent/x.npy"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("/nonexistent/x.npy")));
  EXPECT_FALSE(WriteNpyFile("/nonexistent/dir/y.npy",
                            LiteralUtil::CreateR0<float>(1)).ok());
  EXPECT_FALSE(SerializeNpy(LiteralUtil::MakeTuple({})).ok());
}

}  // namespace
}  // namespace mxla
