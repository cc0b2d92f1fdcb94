// Every elementwise op, for every element type it accepts, on edge values
// (0, -0, 1, -1, inf, -inf, NaN, denormals, the largest finite values,
// INT_MIN, INT_MAX, ...), against a table of XLA's results that was computed
// independently of mxla: edge_value_table.inc, generated with NumPy, exact
// fractions and Python's decimal module by gen_edge_value_table.py (its
// docstring lists the rules and the XLA file each comes from). The types
// are pred, every integer width (s2 to s64, u2 to u64), f16, bf16, every
// f8 type, f4e2m1fn, f32 and f64. The interpreter and the JIT share
// semantics/scalar_semantics.h, so a deviation from XLA there passes every
// differential test; this table is what catches it. Both backends are
// checked against the table, with the values fed as parameters (constants
// would be folded by the evaluator before the JIT saw them).
//
// Exact bits are required, except: where the table has a NaN any NaN will
// do (invalid operations make the hardware's default NaN), and exp, log,
// tanh and logistic of finite values may be off by the error that
// semantics/float32_math.h documents (f32: 1, 1, 2 and 2.5 ulp; rounding
// the exact value in the table adds half an ulp) or 1 ulp in f64;
// power, libm's pow, by 1 ulp; and sine, cosine, tan, expm1, log1p, cbrt,
// erf and atan2, glibc's, by 4 ulp. A type narrower than f32 computes
// these in f32 and rounds: they may be off by 1 ulp of the narrow type.
// f4e2m1fn has no NaN: ml_dtypes rounds a NaN to -0 or +0 by the NaN's sign
// bit, and the sign of a NaN an op makes is the hardware's, so where the
// table has kF4NaN either zero will do.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/op_spec.h"
#include "ir/primitive_type.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

struct Row {
  const char* op;  // HLO opcode; compare-EQ etc. for compare's directions
  PrimitiveType type;
  PrimitiveType result_type;
  uint64_t a, b, expected;  // bit patterns of the elements
};

// The table's expected bits for "a NaN rounded to f4e2m1fn" (F4_NAN in
// gen_edge_value_table.py).
constexpr uint64_t kF4NaN = 0x100;

const Row kTable[] = {
#include "tests/e2e/edge_value_table.inc"
};

// Binary by the op table; "compare-LT" and the other directions too.
bool IsBinary(absl::string_view op) {
  if (absl::StartsWith(op, "compare-")) return true;
  absl::StatusOr<HloOpcode> opcode = StringToHloOpcode(op);
  return opcode.ok() &&
         GetHloOpcodeCategory(*opcode) == HloOpcodeCategory::kBinary;
}

// One module per operand type and arity: parameters a[n] (and b[n]) hold
// the edge values (all pairs for binary ops), and the root is a tuple of
// every op's result on them.
struct Group {
  PrimitiveType type;
  bool binary;
  std::vector<uint64_t> a, b;
  std::vector<std::pair<std::string, PrimitiveType>> ops;
  std::vector<std::vector<uint64_t>> expected;  // per op, per element
};

std::vector<Group> Groups() {
  std::map<std::pair<PrimitiveType, bool>, Group> groups;
  for (const Row& row : kTable) {
    const bool binary = IsBinary(row.op);
    Group& group = groups[{row.type, binary}];
    group.type = row.type;
    group.binary = binary;
    if (group.ops.empty() || group.ops.back().first != row.op ||
        group.ops.back().second != row.result_type) {
      group.ops.emplace_back(row.op, row.result_type);
      group.expected.emplace_back();
    }
    const size_t i = group.expected.back().size();
    if (group.ops.size() == 1) {
      group.a.push_back(row.a);
      group.b.push_back(row.b);
    } else {
      // Every op of a group sees the same inputs in the same order.
      EXPECT_TRUE(i < group.a.size() && group.a[i] == row.a &&
                  (!binary || group.b[i] == row.b))
          << "edge_value_table.inc: inputs of " << row.op << " differ";
    }
    group.expected.back().push_back(row.expected);
  }
  std::vector<Group> out;
  for (auto& [key, group] : groups) out.push_back(std::move(group));
  return out;
}

std::string TypeName(PrimitiveType type) {
  return std::string(primitive_util::LowercaseName(type));
}

std::string ModuleText(const Group& group) {
  const std::string n = absl::StrCat("[", group.a.size(), "]");
  const std::string operand = TypeName(group.type) + n;
  std::string text = absl::StrCat("HloModule edge_values\nENTRY main {\n  a = ",
                                   operand, " parameter(0)\n");
  if (group.binary) absl::StrAppend(&text, "  b = ", operand, " parameter(1)\n");
  std::vector<std::string> names, shapes;
  for (size_t i = 0; i < group.ops.size(); ++i) {
    const auto& [op, result_type] = group.ops[i];
    const std::string shape = TypeName(result_type) + n;
    std::string instruction;
    if (absl::StartsWith(op, "compare-")) {
      instruction = absl::StrCat("compare(a, b), direction=", op.substr(8));
    } else {
      instruction = absl::StrCat(op, group.binary ? "(a, b)" : "(a)");
    }
    absl::StrAppend(&text, "  r", i, " = ", shape, " ", instruction, "\n");
    names.push_back(absl::StrCat("r", i));
    shapes.push_back(shape);
  }
  absl::StrAppend(&text, "  ROOT t = (", absl::StrJoin(shapes, ", "),
                  ") tuple(", absl::StrJoin(names, ", "), ")\n}\n");
  return text;
}

Literal FromBits(PrimitiveType type, const std::vector<uint64_t>& bits) {
  Literal literal(ShapeUtil::MakeShape(type, {static_cast<int64_t>(bits.size())}));
  const int64_t width = primitive_util::ByteWidth(type);
  auto* data = static_cast<char*>(literal.untyped_data());
  for (size_t i = 0; i < bits.size(); ++i) {
    std::memcpy(data + i * width, &bits[i], width);  // little-endian
  }
  return literal;
}

uint64_t Bits(const Literal& literal, int64_t i) {
  const int64_t width = primitive_util::ByteWidth(literal.shape().element_type());
  uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const char*>(literal.untyped_data()) + i * width,
              width);
  return bits;
}

// The element as a double (narrow floats widen exactly), through the
// type's native conversion: only to tell a NaN and to show a float.
double FloatValue(PrimitiveType type, uint64_t bits) {
  return primitive_util::ArrayTypeSwitch(type, [&](auto tag) -> double {
    using T = typename decltype(tag)::type;
    T value;
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8);
    std::memcpy(&value, &bits, sizeof(T));  // little-endian
    if constexpr (std::is_arithmetic_v<T>) {
      return static_cast<double>(value);
    } else if constexpr (kIsSubByteInt<T>) {
      return value.value();
    } else {
      return static_cast<float>(value);
    }
  });
}

bool IsNaN(PrimitiveType type, uint64_t bits) {
  return primitive_util::IsFloatingPointType(type) &&
         std::isnan(FloatValue(type, bits));
}

// How many representable values lie between two finite floats of one sign
// (every float type here is sign and magnitude, its sign the top bit of its
// width: bit 3 of f4e2m1fn; f8e8m0fnu has no sign, its bits are monotonic).
int64_t UlpDistance(PrimitiveType type, uint64_t x, uint64_t y) {
  if (type != F8E8M0FNU) {
    const uint64_t sign = uint64_t{1} << (primitive_util::BitWidth(type) - 1);
    if ((x & sign) != (y & sign)) return x == y ? 0 : INT64_MAX;
  }
  return x > y ? static_cast<int64_t>(x - y) : static_cast<int64_t>(y - x);
}

// The documented error bound of a transcendental op, in ulp of the rounded
// exact value; 0 for everything else.
int64_t AllowedUlps(absl::string_view op, PrimitiveType type) {
  if (primitive_util::IsNarrowFloatType(type)) {
    return AllowedUlps(op, F32) > 0 ? 1 : 0;
  }
  if (op == "power") return 1;  // libm's pow (glibc: < 1 ulp)
  // glibc's documented bounds for these (libm-test-ulps, x86-64) are at
  // most 4 ulp (cbrt in f64); both backends call the same functions.
  for (absl::string_view libm :
       {"sine", "cosine", "tan", "exponential-minus-one", "log-plus-one",
        "cbrt", "erf", "atan2", "asin", "acos", "sinh", "cosh", "asinh",
        "acosh", "atan"}) {
    if (op == libm) return 4;
  }
  if (op != "exponential" && op != "log" && op != "tanh" && op != "logistic") {
    return 0;
  }
  if (type == F64) return 1;
  if (op == "tanh") return 2;
  if (op == "logistic") return 3;
  return 1;
}

std::string Show(PrimitiveType type, uint64_t bits) {
  if (type == PRED) return bits ? "true" : "false";
  if (type == F4E2M1FN && bits == kF4NaN) return "+0 or -0 (a NaN rounded)";
  if (primitive_util::IsFloatingPointType(type)) {
    return absl::StrCat(FloatValue(type, bits));
  }
  const int width = primitive_util::BitWidth(type);
  if (primitive_util::IsUnsignedIntegralType(type)) {
    return absl::StrCat(width == 64 ? bits : bits & ((uint64_t{1} << width) - 1));
  }
  // Signed: sign-extend from the type's width.
  const int shift = 64 - width;
  return absl::StrCat(static_cast<int64_t>(bits << shift) >> shift);
}

// Checks `result` (the tuple a backend returned) against the table.
void ExpectTable(const char* backend, const Group& group, const Literal& result) {
  int failures = 0;
  for (size_t k = 0; k < group.ops.size(); ++k) {
    const auto& [op, type] = group.ops[k];
    const Literal& values = result.tuple_element(k);
    for (size_t i = 0; i < group.a.size(); ++i) {
      const uint64_t expected = group.expected[k][i];
      const uint64_t actual = Bits(values, i);
      bool ok = actual == expected;
      if (!ok && IsNaN(type, expected)) ok = IsNaN(type, actual);
      if (!ok && type == F4E2M1FN && expected == kF4NaN) {
        ok = actual == 0x0 || actual == 0x8;
      }
      if (!ok && AllowedUlps(op, type) > 0 && !IsNaN(type, expected) &&
          expected != kF4NaN && !IsNaN(type, actual)) {
        ok = UlpDistance(type, actual, expected) <= AllowedUlps(op, type);
      }
      if (ok) continue;
      ADD_FAILURE() << backend << ": " << op << " " << TypeName(group.type)
                    << " -> " << TypeName(type) << " of "
                    << Show(group.type, group.a[i])
                    << (group.binary ? ", " + Show(group.type, group.b[i]) : "")
                    << ": expected " << Show(type, expected) << " (0x"
                    << std::hex << expected << "), got " << Show(type, actual)
                    << " (0x" << actual << std::dec << ")";
      if (++failures == 20) return;
    }
  }
}

TEST(EdgeValueTableTest, CoversEveryElementwiseOpAndType) {
  std::map<std::string, std::vector<std::string>> types;
  for (const Group& group : Groups()) {
    for (const auto& [op, result_type] : group.ops) {
      const std::string name = op == "convert"
                                   ? "convert to " + TypeName(result_type)
                                   : op;
      types[name].push_back(TypeName(group.type));
    }
  }
  auto joined = [&](const std::string& op) {
    return absl::StrJoin(types[op], ",");
  };
  // The types shape inference accepts for each op (XLA's rules), in
  // PrimitiveType order.
  const std::string ints = "s2,s4,s8,s16,s32,s64,u2,u4,u8,u16,u32,u64";
  const std::string floats =
      "f16,bf16,f8e5m2,f8e4m3,f8e3m4,f8e4m3fn,f8e4m3fnuz,f8e5m2fnuz,"
      "f8e4m3b11fnuz,f4e2m1fn,f8e8m0fnu,f32,f64";
  const std::string all = "pred," + ints + "," + floats;
  EXPECT_EQ(joined("add"), all);
  EXPECT_EQ(joined("maximum"), all);
  EXPECT_EQ(joined("compare-LT"), all);
  EXPECT_EQ(joined("divide"), ints + "," + floats);
  EXPECT_EQ(joined("power"), ints + "," + floats);
  EXPECT_EQ(joined("xor"), "pred," + ints);
  EXPECT_EQ(joined("not"), "pred," + ints);
  EXPECT_EQ(joined("shift-right-arithmetic"), ints);
  EXPECT_EQ(joined("popcnt"), ints);
  EXPECT_EQ(joined("count-leading-zeros"), ints);
  EXPECT_EQ(joined("sign"), ints + "," + floats);
  EXPECT_EQ(joined("logistic"), floats);
  EXPECT_EQ(joined("erf"), floats);
  EXPECT_EQ(joined("atan2"), floats);
  for (const char* op :
       {"asin", "acos", "sinh", "cosh", "asinh", "acosh", "atan"}) {
    EXPECT_EQ(joined(op), floats) << op;
  }
  EXPECT_EQ(joined("copy"), all);
  // Every type converts to every other one.
  EXPECT_EQ(joined("convert to s32"),
            "pred,s2,s4,s8,s16,s64,u2,u4,u8,u16,u32,u64," + floats);
  EXPECT_EQ(joined("convert to f8e4m3fn"),
            "pred," + ints +
                ",f16,bf16,f8e5m2,f8e4m3,f8e3m4,f8e4m3fnuz,f8e5m2fnuz,"
                "f8e4m3b11fnuz,f4e2m1fn,f8e8m0fnu,f32,f64");
  int64_t ops = 0;
  for (const auto& [op, list] : types) ops += !absl::StartsWith(op, "convert");
  // 15 binary ops, 6 compare directions, 31 unary ops: every elementwise
  // opcode of ir/hlo_ops.def.
  int64_t elementwise = 0;
  for (const OpSpec& spec : AllOpSpecs()) {
    elementwise += spec.category == HloOpcodeCategory::kUnary ||
                   spec.category == HloOpcodeCategory::kBinary;
  }
  EXPECT_EQ(elementwise, 15 + 31);
  EXPECT_EQ(ops, 15 + 6 + 31);
}

TEST(EdgeValueTableTest, InterpreterAndJitGiveXlasValues) {
  for (const Group& group : Groups()) {
    SCOPED_TRACE(absl::StrCat(TypeName(group.type),
                              group.binary ? " binary" : " unary", " ops"));
    const std::string text = ModuleText(group);
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
    std::vector<Literal> arguments;
    arguments.push_back(FromBits(group.type, group.a));
    if (group.binary) arguments.push_back(FromBits(group.type, group.b));
    std::vector<const Literal*> pointers;
    for (const Literal& argument : arguments) pointers.push_back(&argument);

    ASSERT_OK_AND_ASSIGN(Literal interpreted, EvaluateModule(*module, pointers));
    ExpectTable("interpreter", group, interpreted);
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> jit, Compile(*module));
    ASSERT_OK_AND_ASSIGN(Literal compiled, jit->Run(pointers));
    ExpectTable("jit", group, compiled);
  }
}

// An f64 converts into an f8 or f4 type with one rounding, as XLA's
// evaluator does (Literal::Convert's static_cast is ml_dtypes'
// ConvertImpl<double, To>). Through a round-to-nearest f32 these would
// round twice: the f64 just past a midpoint of the narrow type becomes the
// midpoint in f32 and then rounds to even, and an f64 too small for f32
// becomes 0 (NaN in f8e8m0fnu, whose smallest value is 2^-127). Expected
// bits from gen_edge_value_table.py's round_to.
TEST(EdgeValueTableTest, F64IntoNarrowFloatsRoundsOnce) {
  struct Case {
    PrimitiveType to;
    double value;
    uint64_t expected;
  };
  const Case cases[] = {
      {F4E2M1FN, 0x1.40000000008p+1, 0x5},    // 2.5 + 2^-40 -> 3 (not 2)
      {F4E2M1FN, -0x1.40000000008p+1, 0xd},   // -> -3
      {F8E8M0FNU, 0x1.7ffffffffffp+0, 0x7f},  // 1.5 - 2^-40 -> 1 (not 2)
      {F8E8M0FNU, 1e-300, 0x00},              // -> 2^-127 (not NaN)
      {F8E4M3FN, 0x1.10000000010p+0, 0x39},   // 1.0625 + 2^-40 -> 1.125
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrCat(TypeName(c.to), " of ", c.value));
    const std::string text = absl::StrCat(
        "HloModule f64_into_narrow\nENTRY main {\n  a = f64[1] parameter(0)\n"
        "  ROOT r = ",
        TypeName(c.to), "[1] convert(a)\n}\n");
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
    Literal argument = FromBits(F64, {std::bit_cast<uint64_t>(c.value)});
    ASSERT_OK_AND_ASSIGN(Literal interpreted, EvaluateModule(*module, {&argument}));
    EXPECT_EQ(Bits(interpreted, 0), c.expected) << "interpreter";
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> jit, Compile(*module));
    ASSERT_OK_AND_ASSIGN(Literal compiled, jit->Run({&argument}));
    EXPECT_EQ(Bits(compiled, 0), c.expected) << "jit";
  }
}

}  // namespace
}  // namespace mxla
