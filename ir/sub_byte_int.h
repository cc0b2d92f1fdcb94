// XLA's sub-byte integers s2, s4, u2 and u4. mxla stores each element in
// its own byte, sign- or zero-extended (XLA's unpacked form; a layout's
// E(4) element size is parsed and, like every layout, does not change the
// logical array). Like f16 and bf16 they are storage types: an op computes
// in the 32-bit integer of the same signedness and wraps its result back
// into the low bits, which gives two's-complement arithmetic of the narrow
// width for every op whose result does not depend on bits above it; the
// interpreter treats the others (shift-right-logical, popcnt,
// count-leading-zeros) at the narrow width (semantics/sub_byte_ops.h), and
// the JIT computes in LLVM's iN directly.
#ifndef MXLA_IR_SUB_BYTE_INT_H_
#define MXLA_IR_SUB_BYTE_INT_H_

#include <cstdint>
#include <type_traits>

namespace mxla {

template <int kBitWidth, bool kIsSigned>
class SubByteInt {
 public:
  static_assert(kBitWidth > 0 && kBitWidth < 8);
  using Storage = std::conditional_t<kIsSigned, int8_t, uint8_t>;
  // The 32-bit integer ops compute in.
  using Wide = std::conditional_t<kIsSigned, int32_t, uint32_t>;
  static constexpr int kBits = kBitWidth;
  static constexpr bool kSigned = kIsSigned;
  static constexpr int64_t kMin = kIsSigned ? -(int64_t{1} << (kBitWidth - 1)) : 0;
  static constexpr int64_t kMax = kIsSigned ? (int64_t{1} << (kBitWidth - 1)) - 1
                                            : (int64_t{1} << kBitWidth) - 1;

  constexpr SubByteInt() = default;
  // Keeps the low kBitWidth bits, as every conversion between integers does.
  explicit constexpr SubByteInt(int64_t value) : value_(Wrap(value)) {}

  explicit constexpr operator Wide() const { return value_; }
  constexpr Wide value() const { return value_; }
  // The bits without extension: 0 to 2^kBitWidth - 1.
  constexpr uint32_t bits() const {
    return static_cast<uint32_t>(value_) & ((1u << kBitWidth) - 1);
  }

 private:
  static constexpr Storage Wrap(int64_t value) {
    const uint64_t low = static_cast<uint64_t>(value) &
                         ((uint64_t{1} << kBitWidth) - 1);
    if (kIsSigned && (low >> (kBitWidth - 1)) != 0) {
      return static_cast<Storage>(static_cast<int64_t>(low) -
                                  (int64_t{1} << kBitWidth));
    }
    return static_cast<Storage>(low);
  }

  Storage value_ = 0;
};

using Int2 = SubByteInt<2, true>;
using Int4 = SubByteInt<4, true>;
using UInt2 = SubByteInt<2, false>;
using UInt4 = SubByteInt<4, false>;

template <typename T>
inline constexpr bool kIsSubByteInt = false;
template <int kBits, bool kSigned>
inline constexpr bool kIsSubByteInt<SubByteInt<kBits, kSigned>> = true;

}  // namespace mxla

#endif  // MXLA_IR_SUB_BYTE_INT_H_
