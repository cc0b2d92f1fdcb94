// The whole text of a file, for tests that check what mxla wrote ("" if it
// cannot be read: the expectations on its content then fail).
#ifndef MXLA_TESTS_TESTLIB_READ_FILE_H_
#define MXLA_TESTS_TESTLIB_READ_FILE_H_

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace mxla::testing {

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace mxla::testing

#endif  // MXLA_TESTS_TESTLIB_READ_FILE_H_
