// An XlaComputation from HLO text, for tests that write their case as HLO
// (the gradient and vmap tests of transforms/). The text must parse: an
// error is a test failure that shows the parser's status and the text.
#ifndef MXLA_TESTS_TESTLIB_PARSED_COMPUTATION_H_
#define MXLA_TESTS_TESTLIB_PARSED_COMPUTATION_H_

#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "builder/xla_builder.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_module.h"

namespace mxla::testing {

inline XlaComputation Parsed(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status() << "\n" << text;
  return XlaComputation(*std::move(module));
}

}  // namespace mxla::testing

#endif  // MXLA_TESTS_TESTLIB_PARSED_COMPUTATION_H_
