// What identifies the code that compiled a kernel, for the persistent
// compile cache's key (driver/disk_cache.h): an entry is only valid for the
// exact binaries that wrote it and the CPU they targeted. LLVM-free.
#ifndef MXLA_CODEGEN_BUILD_IDENTITY_H_
#define MXLA_CODEGEN_BUILD_IDENTITY_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mxla {

// The loaded binary (executable or shared library) that holds `address`,
// identified by its GNU build ID (a hash the linker writes of the linked
// code) when it has one, else by its path, size and modification time.
// Empty if `address` is in no loaded binary.
std::string BinaryIdentity(const void* address);

// The backend's side of a cache key: the LLVM version and binary, and the
// target the JIT compiles for (triple, CPU, features, MXLA_CPU_FEATURES
// included). Computed once per process; errors as CreateHostTargetMachine's.
absl::StatusOr<std::string> BackendIdentity();

// A 128-bit hash of `bytes` (LLVM's xxh3), as 32 hex digits: for cache keys
// and entry checksums. Not cryptographic: a cache keyed by it also checks
// what it can (see disk_cache.h).
std::string ContentHash(absl::string_view bytes);

}  // namespace mxla

#endif  // MXLA_CODEGEN_BUILD_IDENTITY_H_
