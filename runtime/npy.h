// NumPy `.npy` files (format version 1.0; 2.0 and 3.0 headers are read too):
// little-endian, C order, element types <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2
// <u4 <u8 |b1 (f16 f32 f64 s8 s16 s32 s64 u8 u16 u32 u64 pred). bf16 has no
// NumPy dtype: it is written as <u2 holding its bits (ml_dtypes users get it
// back with `a.view(ml_dtypes.bfloat16)`), and `mxla run` accepts a <u2
// file for a bf16 parameter (or float values, which it rounds). Tuples go
// to .npz archives (runtime/npz.h). s2 and s4 are written as |i1, u2 and u4 as |u1
// (a byte an element, the value), and `mxla run` accepts such a file for
// a sub-byte parameter whose values fit. The 8-bit floats (f8e4m3fn, ...)
// go out as |u1 holding their bits, and a |u1 file feeds such a parameter
// (`a.view(ml_dtypes.float8_e4m3fn)`). Reading never trusts the file: a bad magic, header, type, order or
// size is an InvalidArgument saying what is wrong.
#ifndef MXLA_RUNTIME_NPY_H_
#define MXLA_RUNTIME_NPY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/buffer_allocator.h"
#include "ir/literal.h"
#include "runtime/host_buffer.h"

namespace mxla {

// The array in `bytes` (a whole file); pred bytes other than 0 read as true.
// Its buffer comes from `allocator`, which must outlive it.
absl::StatusOr<Literal> ParseNpy(
    absl::string_view bytes,
    const BufferAllocator& allocator = PooledHostAllocator());
// The .npy bytes (version 1.0) of an array literal; a tuple is
// InvalidArgument.
absl::StatusOr<std::string> SerializeNpy(const Literal& literal);

// NotFound if `path` cannot be opened; ParseNpy's errors, prefixed with
// the path.
absl::StatusOr<Literal> ReadNpyFile(
    const std::string& path,
    const BufferAllocator& allocator = PooledHostAllocator());
// SerializeNpy's errors; InvalidArgument if the file cannot be written.
absl::Status WriteNpyFile(const std::string& path, const Literal& literal);

}  // namespace mxla

#endif  // MXLA_RUNTIME_NPY_H_
