// The remaining op functions: variadic Reduce, RngBitGenerator,
// StochasticConvertType, ScaledDot, CustomCall, tokens and host feeds, the
// one-device collectives, ReplicaId/PartitionId, GetDimensionSize and
// OptimizationBarrier.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "builder/xla_builder.h"
#include "ir/hlo_opcode.h"
#include "ir/replica_groups.h"
#include "python/src/py_bindings.h"
#include "python/src/py_op.h"
#include "python/src/py_status.h"
#include "python/src/py_types.h"

namespace mxla::python {

namespace py = pybind11;

namespace {

void DefineNumberOps(py::module_& m) {
  m.def(
      "ReduceVariadic",
      [](const std::vector<PyOp>& operands, const std::vector<PyOp>& inits,
         const XlaComputation& computation, const Ints& dims) {
        const std::shared_ptr<XlaBuilder>& b = BuilderOf(operands);
        return Checked(b, [&] {
          return Reduce(b.get(), Ops(operands), Ops(inits), computation, dims,
                        BindingSite());
        });
      },
      py::arg("operands"), py::arg("init_values"), py::arg("computation"),
      py::arg("dimensions_to_reduce"),
      "XLA's variadic Reduce: N operands, N inits, a reducer of 2N scalars "
      "returning an N-tuple; the result is an N-tuple.");
  m.def(
      "RngBitGenerator",
      [](const std::string& algorithm, const PyOp& state,
         const py::object& dtype, const Ints& dims) {
        return Checked(state.builder, [&] {
          return RngBitGenerator(
              ValueOrThrow(StringToRandomAlgorithm(algorithm)), state.op,
              ArrayShape(ToDtype(dtype), dims), BindingSite());
        });
      },
      py::arg("algorithm"), py::arg("initial_state"), py::arg("dtype"),
      py::arg("dims"),
      "(new state, bits) with XLA:CPU's bits; algorithm 'rng_default', "
      "'rng_three_fry' or 'rng_philox'.");
  m.def(
      "StochasticConvertType",
      [](const PyOp& x, const PyOp& random, const py::object& dtype) {
        return Checked(x.builder, [&] {
          return StochasticConvertType(
              x.op, random.op, ElementTypeOf(ToDtype(dtype)), BindingSite());
        });
      },
      py::arg("operand"), py::arg("random"), py::arg("dtype"));
  m.def(
      "ScaledDot",
      [](const PyOp& lhs, const PyOp& rhs, const PyOp& lhs_scale,
         const PyOp& rhs_scale, const Ints& lhs_contracting,
         const Ints& rhs_contracting, const Ints& lhs_batch,
         const Ints& rhs_batch) {
        DotDimensionNumbers dims;
        dims.lhs_contracting = lhs_contracting;
        dims.rhs_contracting = rhs_contracting;
        dims.lhs_batch = lhs_batch;
        dims.rhs_batch = rhs_batch;
        return Checked(lhs.builder, [&] {
          return ScaledDot(lhs.op, rhs.op, lhs_scale.op, rhs_scale.op, dims,
                           BindingSite());
        });
      },
      py::arg("lhs"), py::arg("rhs"), py::arg("lhs_scale"),
      py::arg("rhs_scale"), py::arg("lhs_contracting_dims"),
      py::arg("rhs_contracting_dims"), py::arg("lhs_batch_dims") = Ints{},
      py::arg("rhs_batch_dims") = Ints{});
}

void DefineSystemOps(py::module_& m) {
  m.def(
      "CustomCall",
      [](const std::shared_ptr<XlaBuilder>& b, const std::string& target,
         const std::vector<PyOp>& operands, const py::object& dtype,
         const Ints& dims) {
        return Checked(b, [&] {
          return CustomCall(b.get(), target, Ops(operands),
                            ArrayShape(ToDtype(dtype), dims), BindingSite());
        });
      },
      py::arg("builder"), py::arg("call_target_name"), py::arg("operands"),
      py::arg("dtype"), py::arg("dims"));
  m.def(
      "CreateToken",
      [](const std::shared_ptr<XlaBuilder>& b) {
        return Checked(b, [&] { return CreateToken(b.get(), BindingSite()); });
      },
      py::arg("builder"));
  m.def(
      "AfterAll",
      [](const std::shared_ptr<XlaBuilder>& b,
         const std::vector<PyOp>& tokens) {
        return Checked(
            b, [&] { return AfterAll(b.get(), Ops(tokens), BindingSite()); });
      },
      py::arg("builder"), py::arg("tokens"));
  m.def(
      "InfeedWithToken",
      [](const PyOp& token, const py::object& dtype, const Ints& dims) {
        return Checked(token.builder, [&] {
          return InfeedWithToken(token.op, ArrayShape(ToDtype(dtype), dims),
                                 BindingSite());
        });
      },
      py::arg("token"), py::arg("dtype"), py::arg("dims"));
  m.def(
      "OutfeedWithToken",
      [](const PyOp& x, const PyOp& token) {
        return Checked(x.builder, [&] {
          return OutfeedWithToken(x.op, token.op, BindingSite());
        });
      },
      py::arg("operand"), py::arg("token"));
  m.def(
      "GetDimensionSize",
      [](const PyOp& x, int64_t dimension) {
        return Checked(x.builder, [&] {
          return GetDimensionSize(x.op, dimension, BindingSite());
        });
      },
      py::arg("operand"), py::arg("dimension"));
  m.def(
      "OptimizationBarrier",
      [](const PyOp& x) {
        return Checked(x.builder, [&] {
          return OptimizationBarrier(x.op, BindingSite());
        });
      },
      py::arg("operand"));
  m.def(
      "ReplicaId",
      [](const std::shared_ptr<XlaBuilder>& b) {
        return Checked(b, [&] { return ReplicaId(b.get(), BindingSite()); });
      },
      py::arg("builder"));
  m.def(
      "PartitionId",
      [](const std::shared_ptr<XlaBuilder>& b) {
        return Checked(b, [&] { return PartitionId(b.get(), BindingSite()); });
      },
      py::arg("builder"));
}

// XLA's collectives, checked as the C++ builder checks them (builder/ops.h).
void DefineCollectives(py::module_& m) {
  m.def(
      "AllReduce",
      [](const PyOp& x, const XlaComputation& computation,
         const IdGroups& replica_groups) {
        return Checked(x.builder, [&] {
          return AllReduce(x.op, computation, replica_groups, BindingSite());
        });
      },
      py::arg("operand"), py::arg("computation"),
      py::arg("replica_groups") = IdGroups{});
  m.def(
      "AllGather",
      [](const PyOp& x, int64_t dimension, int64_t shard_count,
         const IdGroups& replica_groups) {
        return Checked(x.builder, [&] {
          return AllGather(x.op, dimension, shard_count, replica_groups,
                           BindingSite());
        });
      },
      py::arg("operand"), py::arg("all_gather_dimension"),
      py::arg("shard_count"), py::arg("replica_groups") = IdGroups{});
  m.def(
      "ReduceScatter",
      [](const PyOp& x, const XlaComputation& computation, int64_t dimension,
         int64_t shard_count, const IdGroups& replica_groups) {
        return Checked(x.builder, [&] {
          return ReduceScatter(x.op, computation, dimension, shard_count,
                               replica_groups, BindingSite());
        });
      },
      py::arg("operand"), py::arg("computation"), py::arg("scatter_dimension"),
      py::arg("shard_count"), py::arg("replica_groups") = IdGroups{});
  m.def(
      "AllToAll",
      [](const PyOp& x, int64_t split_dimension, int64_t concat_dimension,
         int64_t split_count, const IdGroups& replica_groups) {
        return Checked(x.builder, [&] {
          return AllToAll(x.op, split_dimension, concat_dimension, split_count,
                          replica_groups, BindingSite());
        });
      },
      py::arg("operand"), py::arg("split_dimension"),
      py::arg("concat_dimension"), py::arg("split_count"),
      py::arg("replica_groups") = IdGroups{});
  m.def(
      "CollectivePermute",
      [](const PyOp& x, const std::vector<std::pair<int64_t, int64_t>>& pairs) {
        return Checked(x.builder, [&] {
          return CollectivePermute(x.op, pairs, BindingSite());
        });
      },
      py::arg("operand"), py::arg("source_target_pairs"));
  m.def(
      "RaggedAllToAll",
      [](const PyOp& input, const PyOp& input_offsets, const PyOp& send_sizes,
         const PyOp& output, const PyOp& output_offsets,
         const PyOp& recv_sizes, const IdGroups& replica_groups) {
        return Checked(input.builder, [&] {
          return RaggedAllToAll(input.op, input_offsets.op, send_sizes.op,
                                output.op, output_offsets.op, recv_sizes.op,
                                replica_groups, BindingSite());
        });
      },
      py::arg("input"), py::arg("input_offsets"), py::arg("send_sizes"),
      py::arg("output"), py::arg("output_offsets"), py::arg("recv_sizes"),
      py::arg("replica_groups") = IdGroups{});
  m.def(
      "CollectiveBroadcast",
      [](const PyOp& x, const IdGroups& replica_groups) {
        return Checked(x.builder, [&] {
          return CollectiveBroadcast(x.op, replica_groups, BindingSite());
        });
      },
      py::arg("operand"), py::arg("replica_groups"));
}

}  // namespace

void DefineSystemOpBindings(py::module_& m) {
  DefineNumberOps(m);
  DefineSystemOps(m);
  DefineCollectives(m);
}

}  // namespace mxla::python
