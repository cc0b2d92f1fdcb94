#include "passes/pass_registry.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/status_macros.h"
#include "passes/call_inliner.h"
#include "passes/conditional_to_select.h"
#include "passes/cse.h"
#include "passes/convolution_expander.h"
#include "passes/dot_expander.h"
#include "passes/reduce_window_expander.h"
#include "passes/batch_norm_expander.h"
#include "passes/cholesky_expander.h"
#include "passes/triangular_solve_expander.h"
#include "passes/tuple_constant_splitter.h"
#include "passes/ragged_dot_expander.h"
#include "passes/scaled_dot_expander.h"
#include "passes/rng_bit_generator_expander.h"
#include "passes/rng_expander.h"
#include "passes/scan_expander.h"
#include "passes/stochastic_convert_expander.h"
#include "passes/topk_expander.h"
#include "passes/sort_key_hoisting.h"
#include "passes/dce.h"
#include "passes/fusion.h"
#include "passes/fusion_planning.h"
#include "passes/lower_broadcasts.h"
#include "passes/lower_collectives.h"
#include "passes/pair_sends_and_recvs.h"
#include "passes/map_inliner.h"
#include "passes/row_fusion.h"
#include "passes/simplify.h"
#include "passes/while_loop_invariant_code_motion.h"
#include "passes/while_loop_simplifier.h"

namespace mxla {
namespace {

struct PassFactory {
  const char* name;
  std::unique_ptr<HloPass> (*create)(const PassOptions& options);
};

template <typename Pass>
std::unique_ptr<HloPass> Make(const PassOptions&) {
  return std::make_unique<Pass>();
}

template <typename Pass>
std::unique_ptr<HloPass> MakePlanning(const PassOptions& options) {
  return std::make_unique<Pass>(options.fusion_planning);
}

template <typename Pass>
std::unique_ptr<HloPass> MakeExpander(const PassOptions& options) {
  return std::make_unique<Pass>(options.keep_matrix_products);
}

constexpr PassFactory kPasses[] = {
    {"inline-calls", &Make<CallInlinerPass>},
    {"lower-collectives", &Make<LowerCollectivesPass>},
    {"pair-sends-and-recvs", &Make<PairSendsAndRecvsPass>},
    {"conditional-to-select", &Make<ConditionalToSelectPass>},
    {"inline-maps", &Make<MapInlinerPass>},
    {"inline-unplannable-fusions",
     &MakePlanning<UnplannableFusionInlinerPass>},
    {"expand-reduce-windows", &Make<ReduceWindowExpanderPass>},
    {"expand-rngs", &Make<RngExpanderPass>},
    {"expand-scans", &Make<ScanExpanderPass>},
    {"expand-topk", &Make<TopKExpanderPass>},
    {"hoist-sort-keys", &Make<SortKeyHoistingPass>},
    {"expand-convolutions", &MakeExpander<ConvolutionExpanderPass>},
    {"expand-batch-norms", &Make<BatchNormExpanderPass>},
    {"expand-choleskys", &Make<CholeskyExpanderPass>},
    {"expand-triangular-solves", &Make<TriangularSolveExpanderPass>},
    {"split-tuple-constants", &Make<TupleConstantSplitterPass>},
    {"expand-stochastic-converts", &Make<StochasticConvertExpanderPass>},
    {"expand-rng-bit-generators", &Make<RngBitGeneratorExpanderPass>},
    {"expand-ragged-dots", &Make<RaggedDotExpanderPass>},
    {"expand-scaled-dots", &Make<ScaledDotExpanderPass>},
    {"expand-dots", &MakeExpander<DotExpanderPass>},
    {"lower-broadcasts", &Make<LowerBroadcastsPass>},
    {"simplify", &Make<SimplifyPass>},
    {"cse", &Make<CsePass>},
    {"dce", &Make<DcePass>},
    {"while-loop-invariant-code-motion",
     &Make<WhileLoopInvariantCodeMotionPass>},
    {"while-loop-simplifier", &Make<WhileLoopSimplifierPass>},
    {"fusion", &Make<FusionPass>},
    {"row-fusion", &Make<RowFusionPass>},
    {"fusion-planning", &MakePlanning<FusionPlanningPass>},
};

}  // namespace

std::vector<std::string> AvailablePassNames() {
  std::vector<std::string> names;
  for (const PassFactory& factory : kPasses) names.push_back(factory.name);
  return names;
}

absl::StatusOr<std::unique_ptr<HloPass>> CreatePass(
    absl::string_view name, const PassOptions& options) {
  for (const PassFactory& factory : kPasses) {
    if (name == factory.name) return factory.create(options);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown pass '", name, "' (available passes: ",
                   absl::StrJoin(AvailablePassNames(), ", "), ")"));
}

absl::StatusOr<std::unique_ptr<PassPipeline>> CreatePipeline(
    absl::Span<const std::string> pass_names, PipelineOptions options,
    const PassOptions& pass_options) {
  auto pipeline = std::make_unique<PassPipeline>(std::move(options));
  for (const std::string& name : pass_names) {
    ASSIGN_OR_RETURN(std::unique_ptr<HloPass> pass,
                     CreatePass(name, pass_options));
    pipeline->AddPass(std::move(pass));
  }
  return pipeline;
}

void AddDefaultPasses(PassPipeline& pipeline) {
  pipeline.AddPass(std::make_unique<RngExpanderPass>());
  pipeline.AddPass(std::make_unique<CallInlinerPass>());
  pipeline.AddPass(std::make_unique<PairSendsAndRecvsPass>());
  pipeline.AddPass(std::make_unique<LowerBroadcastsPass>());
  std::vector<std::unique_ptr<HloPass>> fixed_point;
  fixed_point.push_back(std::make_unique<SimplifyPass>());
  fixed_point.push_back(std::make_unique<CsePass>());
  fixed_point.push_back(std::make_unique<DcePass>());
  fixed_point.push_back(std::make_unique<WhileLoopInvariantCodeMotionPass>());
  fixed_point.push_back(std::make_unique<WhileLoopSimplifierPass>());
  pipeline.AddFixedPoint("simplify-cse-dce", std::move(fixed_point));
}

const std::vector<std::string>& JitPassNames() {
  static const auto* const kNames = new std::vector<std::string>{
      "split-tuple-constants", "lower-collectives", "expand-scans",
      "expand-topk", "hoist-sort-keys", "expand-ragged-dots",
      "expand-scaled-dots", "expand-batch-norms",
      "expand-stochastic-converts", "expand-rng-bit-generators",
      "expand-choleskys", "expand-triangular-solves", "inline-calls",
      "conditional-to-select", "inline-maps", "inline-unplannable-fusions",
      "expand-reduce-windows", "expand-convolutions", "expand-dots",
      "lower-broadcasts", "fusion", "row-fusion", "fusion-planning"};
  return *kNames;
}

absl::StatusOr<std::unique_ptr<PassPipeline>> CreateCompilePasses(
    const std::optional<std::vector<std::string>>& pass_names, bool for_jit,
    PipelineOptions options, const PassOptions& pass_options) {
  std::unique_ptr<PassPipeline> passes;
  if (pass_names.has_value()) {
    // expand-rngs first, as in the default list.
    std::vector<std::string> names = {"expand-rngs"};
    names.insert(names.end(), pass_names->begin(), pass_names->end());
    ASSIGN_OR_RETURN(passes,
                     CreatePipeline(names, std::move(options), pass_options));
  } else {
    passes = std::make_unique<PassPipeline>(std::move(options));
    AddDefaultPasses(*passes);
  }
  if (!for_jit) return passes;  // the interpreter evaluates any verified HLO
  for (const std::string& name : JitPassNames()) {
    ASSIGN_OR_RETURN(std::unique_ptr<HloPass> pass,
                     CreatePass(name, pass_options));
    passes->AddPass(std::move(pass));
  }
  return passes;
}

}  // namespace mxla
