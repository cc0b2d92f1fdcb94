// Fuzz target: .npy bytes -> ParseNpy -> SerializeNpy -> ParseNpy.
// Properties: no crash or sanitizer report; errors are InvalidArgument; an
// accepted file round-trips to an equal literal.
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "runtime/npy.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<mxla::Literal> literal = mxla::ParseNpy(bytes);
  if (!literal.ok()) {
    FUZZ_CHECK(literal.status().code() == absl::StatusCode::kInvalidArgument,
               literal.status().ToString());
    return 0;
  }
  absl::StatusOr<std::string> serialized = mxla::SerializeNpy(*literal);
  FUZZ_CHECK(serialized.ok(), serialized.status().ToString());
  absl::StatusOr<mxla::Literal> again = mxla::ParseNpy(*serialized);
  FUZZ_CHECK(again.ok(), again.status().ToString());
  // pred bytes other than 0 read as 1, so compare after one round trip.
  absl::StatusOr<std::string> twice = mxla::SerializeNpy(*again);
  FUZZ_CHECK(twice.ok() && *twice == *serialized, "round trip changed bytes");
  return 0;
}
