// Generated arguments that ragged-all-to-all accepts. Its offsets and
// sizes say which rows each device sends each peer and where they land,
// and both backends refuse a run whose rows fall out of range or whose
// recv_sizes disagree with the peers' send_sizes; random small integers
// almost never agree. So, as XLA's ragged-all-to-all tests build them,
// each sender's updates partition a prefix of its input, each receiver's
// a prefix of its output, and every recv_sizes entry is what its peer
// sends.
#ifndef MXLA_TOOLS_RAGGED_ARGUMENTS_H_
#define MXLA_TOOLS_RAGGED_ARGUMENTS_H_

#include <vector>

#include "ir/device_assignment.h"
#include "ir/hlo_computation.h"
#include "ir/literal.h"

namespace mxla::tools {

// For each ragged-all-to-all of `entry` whose four offset and size
// operands are entry parameters (directly or through copy, reshape,
// bitcast or convert, which keep the values in order), writes valid
// offsets and sizes into those parameters of `arguments[d]`, device d's
// full argument list, for every device of `assignment`. An op whose
// groups cannot be formed, whose operands share a parameter or are
// already written for another op, or whose parameters are not integer
// arrays keeps its arguments as they are (the run then says why).
void FillRaggedAllToAllArguments(const HloComputation& entry,
                                 const DeviceAssignment& assignment,
                                 std::vector<std::vector<Literal>>& arguments);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_RAGGED_ARGUMENTS_H_
