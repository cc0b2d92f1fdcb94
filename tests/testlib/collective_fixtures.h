// HLO modules the collective tests of several folders share.
#ifndef MXLA_TESTS_TESTLIB_COLLECTIVE_FIXTURES_H_
#define MXLA_TESTS_TESTLIB_COLLECTIVE_FIXTURES_H_

namespace mxla::testing {

// The sum of an in-place four-operand collective-permute's result (two
// rows of each device's input written at row 0 of its partner's output):
// the form gradient and vmap refuse by name.
inline constexpr char kInPlacePermuteSum[] = R"(
HloModule permute
add {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT s = f64[] add(a, b)
}
ENTRY main {
  input = f64[4,3] parameter(0)
  output = f64[5,3] parameter(1)
  one = s32[] constant(1)
  zero = s32[] constant(0)
  in_start = (s32[], s32[]) tuple(one, zero)
  out_start = (s32[], s32[]) tuple(zero, zero)
  cp = f64[5,3] collective-permute(input, output, in_start, out_start), source_target_pairs={{0,1},{1,0}}, slice_sizes={{2,3}}
  c = f64[] constant(0)
  ROOT sum = f64[] reduce(cp, c), dimensions={0,1}, to_apply=add
})";

}  // namespace mxla::testing

#endif  // MXLA_TESTS_TESTLIB_COLLECTIVE_FIXTURES_H_
