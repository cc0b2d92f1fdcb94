// Reads decisions out of a fuzzer's bytes: small integers, booleans and
// choices. When the bytes run out every read returns its lowest value, so
// any input, even an empty one, decodes to something.
#ifndef MXLA_TESTS_FUZZ_BYTE_READER_H_
#define MXLA_TESTS_FUZZ_BYTE_READER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mxla::fuzz {

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool empty() const { return position_ == size_; }

  // A value in [low, high] (high - low < 2^16) from one or two bytes.
  int64_t Int(int64_t low, int64_t high) {
    uint64_t span = static_cast<uint64_t>(high - low) + 1;
    uint64_t raw = Byte();
    if (span > 256) raw = raw << 8 | Byte();
    return low + static_cast<int64_t>(raw % span);
  }
  bool Bool() { return Byte() & 1; }
  uint64_t U64() {
    uint64_t value = 0;
    for (int i = 0; i < 8; ++i) value = value << 8 | Byte();
    return value;
  }
  template <typename T>
  const T& Pick(const std::vector<T>& choices) {
    return choices[Int(0, static_cast<int64_t>(choices.size()) - 1)];
  }

 private:
  uint8_t Byte() { return position_ < size_ ? data_[position_++] : 0; }

  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

}  // namespace mxla::fuzz

#endif  // MXLA_TESTS_FUZZ_BYTE_READER_H_
