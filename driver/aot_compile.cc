#include "driver/aot_compile.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "driver/compile_pipeline.h"
#include "driver/subprogram.h"
#include "ir/status_macros.h"
#include "runtime/buffer_assignment.h"
#include "runtime/buffer_leaves.h"
#include "runtime/jit_executable.h"

namespace mxla {
namespace {

bool IsCKeyword(absl::string_view name) {
  static const auto* keywords = new absl::flat_hash_set<std::string>{
      "auto",     "break",    "case",     "char",   "const",    "continue",
      "default",  "do",       "double",   "else",   "enum",     "extern",
      "float",    "for",      "goto",     "if",     "inline",   "int",
      "long",     "register", "restrict", "return", "short",    "signed",
      "sizeof",   "static",   "struct",   "switch", "typedef",  "union",
      "unsigned", "void",     "volatile", "while",  "bool",     "class",
      "delete",   "new",      "private",  "public", "template", "this"};
  return keywords->contains(name);
}

}  // namespace

absl::Status CheckAotFunctionName(absl::string_view name) {
  bool valid = !name.empty() && !absl::ascii_isdigit(name[0]) &&
               !IsCKeyword(name);
  for (char c : name) valid &= absl::ascii_isalnum(c) || c == '_';
  if (valid) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "ahead-of-time function name '", name,
      "' is not a C identifier (letters, digits and '_', not starting with a "
      "digit, not a keyword)"));
}

std::string AotIdentifierFrom(absl::string_view name) {
  std::string out;
  for (char c : name) out += absl::ascii_isalnum(c) ? c : '_';
  if (out.empty() || absl::ascii_isdigit(out[0])) out = "_" + out;
  return out;
}

namespace {

AotBuffer ToAotBuffer(const BufferSlot& slot) {
  switch (slot.kind) {
    case BufferSlot::kParameter:
      return {AotBuffer::kArgument, slot.index, 0};
    case BufferSlot::kConstant:
      return {AotBuffer::kConstant, slot.index, 0};
    case BufferSlot::kResult:
      return {AotBuffer::kResult, slot.index, 0};
    case BufferSlot::kArena:
      return {AotBuffer::kTemp, 0, slot.offset};
  }
  return {};
}

// Infeed and outfeed exchange values with the host feed, and the device
// steps with other devices, which only the runtime can.
absl::Status CheckCompilable(const BufferAssignment& assignment) {
  for (const FusionStep& step : assignment.steps) {
    const HloInstruction& instruction = *step.fusion;
    switch (instruction.opcode()) {
      case HloOpcode::kInfeed:
      case HloOpcode::kOutfeed:
        return absl::UnimplementedError(absl::StrCat(
            "ahead-of-time compilation cannot compile '", instruction.name(),
            "' (", HloOpcodeString(instruction.opcode()),
            "): it exchanges values with the host feed, which only the mxla "
            "runtime provides; compile the module with the jit instead"));
      default:
        if (IsDeviceStepOp(instruction.opcode())) {
          return absl::UnimplementedError(absl::StrCat(
              "ahead-of-time compilation cannot compile '",
              instruction.name(), "' (", HloOpcodeString(instruction.opcode()),
              "): ",
              instruction.opcode() == HloOpcode::kRaggedAllToAll
                  ? "it runs as a step of the mxla runtime, which checks its "
                    "offsets and sizes"
                  : "a program compiled for several devices reaches the "
                    "others through the mxla runtime",
              "; compile it with the jit instead"));
        }
        break;
    }
  }
  return absl::OkStatus();
}

int64_t Align64(int64_t bytes) { return (bytes + 63) / 64 * 64; }

// `module` verified and through the HLO passes for `options`: the stages
// through "hlo-passes", which compile no subprograms.
absl::StatusOr<CompiledModule> OptimizeModule(const HloModule& module,
                                              const CompileOptions& options) {
  StageRange through_passes;
  through_passes.last = "hlo-passes";
  return RunCompilePipeline(module, options, SubprogramCompilers{},
                            through_passes);
}

// The assignment's input_output_alias pairs and the copies made before
// the steps run.
void AddAliases(const BufferAssignment& assignment, AotProgram& program) {
  for (const AliasedLeaf& alias : assignment.aliases) {
    program.aliases.push_back({alias.argument_leaf, alias.result_leaf,
                               assignment.argument_bytes[alias.argument_leaf]});
  }
  for (const auto& [from, to] : assignment.copies_before) {
    program.copies_before.push_back(
        {ToAotBuffer(from), ToAotBuffer(to), from.bytes});
  }
}

// A fusion's kernel step; a split reduction's scratch goes at the end of
// `temp_bytes`, which grows by it.
absl::StatusOr<AotStep> KernelStep(const FusionStep& step,
                                   const std::vector<KernelInfo>& kernels,
                                   int64_t& temp_bytes) {
  AotStep aot;
  for (const BufferSlot& slot : step.buffers) {
    aot.buffers.push_back(ToAotBuffer(slot));
  }
  const KernelInfo* info = nullptr;
  for (const KernelInfo& kernel : kernels) {
    if (kernel.fusion_name == step.fusion->name()) info = &kernel;
  }
  RET_CHECK(info != nullptr, "no kernel for ", step.fusion->name());
  aot.symbol = info->symbol;
  aot.combine_symbol = info->combine_symbol;
  aot.units = info->units;
  aot.max_chunks = KernelMaxChunks(*info);
  if (info->scratch_bytes > 0) {
    aot.scratch_offset = Align64(temp_bytes);
    temp_bytes = aot.scratch_offset + info->scratch_bytes;
  }
  return aot;
}

// Each control step paired with the most temp its computations need.
using PlannedControls =
    std::vector<std::pair<std::shared_ptr<AotControl>, int64_t>>;

// One region after `temp_bytes` that the control steps share (they run one
// at a time), each holding its own scratch and then its computations' temp;
// returns the temp bytes with it.
int64_t PlaceControls(const PlannedControls& controls, int64_t temp_bytes) {
  const int64_t region = Align64(temp_bytes);
  for (const auto& [control, computation_bytes] : controls) {
    control->temp_offset = region;
    control->computation_temp_offset =
        region + Align64(AotControlScratchBytes(*control));
    temp_bytes = std::max(temp_bytes, control->computation_temp_offset +
                                          computation_bytes);
  }
  return temp_bytes;
}

// The constants' bytes, and the result leaves that are not written in
// place, copied from where they are.
void AddConstantsAndCopies(const BufferAssignment& assignment,
                           AotProgram& program) {
  for (const HloInstruction* constant : assignment.constants) {
    const Literal& literal = constant->literal();
    program.constants.emplace_back(
        static_cast<const char*>(literal.untyped_data()),
        literal.size_bytes());
  }
  for (size_t i = 0; i < assignment.results.size(); ++i) {
    const BufferSlot& source = assignment.results[i];
    if (source.kind == BufferSlot::kResult && source.index == int64_t(i)) {
      continue;  // written in place
    }
    if (source.kind == BufferSlot::kParameter &&
        absl::c_linear_search(assignment.aliases,
                              AliasedLeaf{static_cast<int64_t>(i),
                                          source.index})) {
      continue;  // in its aliased argument's buffer, which is results[i]
    }
    if (source.bytes > 0) {
      program.copies.push_back(
          {static_cast<int64_t>(i), ToAotBuffer(source), source.bytes});
    }
  }
}

std::vector<int64_t> Dimensions(const Shape& shape) {
  return {shape.dimensions().begin(), shape.dimensions().end()};
}

int64_t ElementBytes(const Shape& shape) {
  return primitive_util::ByteWidth(shape.element_type());
}

// A sort's, scatter's and select-and-scatter's geometry, as the JIT's
// subprograms take it (driver/subprogram.cc).
void SetSortGeometry(const HloInstruction& instruction, AotControl& control) {
  control.dims = Dimensions(instruction.operand(0)->shape());
  control.dimension = instruction.dimensions(0);
  for (const HloInstruction* operand : instruction.operands()) {
    control.element_bytes.push_back(ElementBytes(operand->shape()));
  }
}

void SetScatterGeometry(const HloInstruction& instruction,
                        AotControl& control) {
  const int64_t n = instruction.operand_count() / 2;
  const Shape& indices = instruction.operand(n)->shape();
  control.dims = Dimensions(instruction.operand(0)->shape());
  control.indices_dims = Dimensions(indices);
  control.indices_type = indices.element_type();
  control.update_dims = Dimensions(instruction.operand(n + 1)->shape());
  control.scatter_dnums = instruction.scatter_dimension_numbers();
  for (int64_t i = 0; i < instruction.operand_count(); ++i) {
    if (i == n) continue;
    control.element_bytes.push_back(
        ElementBytes(instruction.operand(i)->shape()));
  }
}

void SetSelectAndScatterGeometry(const HloInstruction& instruction,
                                 AotControl& control) {
  const Shape& operand = instruction.operand(0)->shape();
  control.dims = Dimensions(operand);
  control.window = instruction.window();
  for (const Shape* shape : {&operand, &instruction.operand(1)->shape(),
                             &instruction.shape()}) {
    control.element_bytes.push_back(ElementBytes(*shape));
  }
}

// A while, conditional, sort, scatter or select-and-scatter as a control
// step, without its computations: its kind, geometry and leaves.
absl::StatusOr<std::shared_ptr<AotControl>> ControlOf(
    const HloInstruction& instruction) {
  auto control = std::make_shared<AotControl>();
  control->name = instruction.name();
  switch (instruction.opcode()) {
    case HloOpcode::kWhile:
      control->kind = AotControl::kWhile;
      break;
    case HloOpcode::kConditional:
      control->kind = AotControl::kConditional;
      control->pred_index =
          instruction.operand(0)->shape().element_type() == PRED;
      break;
    case HloOpcode::kSort:
      control->kind = AotControl::kSort;
      SetSortGeometry(instruction, *control);
      break;
    case HloOpcode::kScatter:
      control->kind = AotControl::kScatter;
      SetScatterGeometry(instruction, *control);
      break;
    case HloOpcode::kSelectAndScatter:
      control->kind = AotControl::kSelectAndScatter;
      SetSelectAndScatterGeometry(instruction, *control);
      break;
    default:
      return absl::InternalError(absl::StrCat(
          "no ahead-of-time driver step for '", instruction.name(), "'"));
  }
  for (const HloInstruction* operand : instruction.operands()) {
    int64_t leaves = 0;
    ForEachArrayLeaf(operand->shape(), [&](const Shape&) { ++leaves; });
    control->operand_leaves.push_back(leaves);
  }
  ForEachArrayLeaf(instruction.shape(), [&](const Shape& leaf) {
    control->leaf_bytes.push_back(ShapeUtil::ByteSizeOf(leaf));
  });
  return control;
}

// Plans the driver of a fused computation and, recursively, of every
// computation its loops, conditionals, sorts and scatters call: each called
// computation compiled on its own as the JIT's subprograms are
// (driver/subprogram.h), its kernels added to the one AotModule.
class DriverPlanner {
 public:
  DriverPlanner(std::string function, const CompileOptions& compile,
                AotModule& aot)
      : function_(std::move(function)), compile_(compile), aot_(aot) {
    compile_.pipeline.dump_dir.clear();  // as the JIT's subprograms
  }

  // The driver `function` of `fused`, optimized from `input`; returns it
  // and its temp bytes: the assignment's temporaries, the split
  // reductions' scratch after them (as the JIT lays it out), then one
  // region that the control steps share (they run one at a time), each
  // holding its own scratch and then its computations' temp.
  absl::StatusOr<std::pair<AotProgram, int64_t>> Plan(
      const HloModule& fused, const HloModule& input,
      const std::string& function, const std::string& kernel_prefix) {
    // input_output_alias, and a while body's state: updated in place.
    ASSIGN_OR_RETURN(std::vector<AliasedLeaf> aliases,
                     ResolveInputOutputAliases(fused));
    ASSIGN_OR_RETURN(BufferAssignment assignment,
                     AssignBuffers(*fused.entry_computation(), aliases));
    // Before any code is generated.
    RETURN_IF_ERROR(CheckCompilable(assignment));
    ASSIGN_OR_RETURN(std::vector<KernelInfo> kernels,
                     aot_.AddKernels(fused, kernel_prefix));
    AotProgram program;
    program.function = function;
    AddAliases(assignment, program);
    int64_t temp_bytes = assignment.arena_bytes;
    PlannedControls controls;
    for (const FusionStep& step : assignment.steps) {
      if (!IsSubprogramOp(step.fusion->opcode())) {
        ASSIGN_OR_RETURN(AotStep aot, KernelStep(step, kernels, temp_bytes));
        program.steps.push_back(std::move(aot));
        continue;
      }
      AotStep aot;
      for (const BufferSlot& slot : step.buffers) {
        aot.buffers.push_back(ToAotBuffer(slot));
      }
      ASSIGN_OR_RETURN(auto control, PlanControl(*step.fusion, input));
      aot.control = control.first;
      controls.push_back(std::move(control));
      program.steps.push_back(std::move(aot));
    }
    temp_bytes = PlaceControls(controls, temp_bytes);
    AddConstantsAndCopies(assignment, program);
    return std::make_pair(std::move(program), temp_bytes);
  }

 private:
  // A while, conditional, sort, scatter or select-and-scatter: its
  // computations planned (as driver/subprogram.h makes the JIT's),
  // and the most temp one of them needs.
  absl::StatusOr<std::pair<std::shared_ptr<AotControl>, int64_t>> PlanControl(
      const HloInstruction& instruction, const HloModule& input) {
    ASSIGN_OR_RETURN(std::shared_ptr<AotControl> control,
                     ControlOf(instruction));
    int64_t computation_bytes = 0;
    for (const HloComputation* computation :
         instruction.called_computations()) {
      ASSIGN_OR_RETURN(auto planned,
                       PlanComputation(instruction, *computation, input));
      if (control->kind == AotControl::kWhile &&
          computation == instruction.called_computations().back()) {
        control->body_in_place = !planned.first.aliases.empty();
      }
      control->computations.push_back(std::move(planned.first));
      computation_bytes = std::max(computation_bytes, planned.second);
    }
    return std::make_pair(std::move(control), computation_bytes);
  }

  // A called computation compiled on its own with the same options: from
  // the input module's computation of that name when there is one (the
  // passes have not rewritten it), else from the fused module's, as the
  // JIT's subprograms are (driver/subprogram.h).
  absl::StatusOr<std::pair<AotProgram, int64_t>> PlanComputation(
      const HloInstruction& instruction, const HloComputation& computation,
      const HloModule& input) {
    std::unique_ptr<HloModule> module =
        CalledComputationModule(instruction, computation, &input);
    ASSIGN_OR_RETURN(CompiledModule optimized,
                     OptimizeModule(*module, compile_));
    const int64_t id = ++computations_;
    return Plan(*optimized.module, *module,
                absl::StrCat(function_, ".computation.", id),
                absl::StrCat("mxla.c", id, "."));
  }

  const std::string function_;
  CompileOptions compile_;
  AotModule& aot_;
  int64_t computations_ = 0;
};

// The C type of an element, as the header's typed wrapper passes it.
std::string CType(PrimitiveType type) {
  switch (type) {
    case F32: return "float";
    case F64: return "double";
    case S8: return "int8_t";
    case S16: return "int16_t";
    case S32: return "int32_t";
    case S64: return "int64_t";
    case U8: return "uint8_t";
    case U16: return "uint16_t";
    case U32: return "uint32_t";
    case U64: return "uint64_t";
    case PRED: return "uint8_t";  // one byte, 0 or 1
    default: return "void";       // raw bits (16-bit floats, sub-byte ints)
  }
}

struct Leaf {
  std::string name;         // for the typed wrapper's parameter
  std::string description;  // e.g. parameter 0 "x", f32[4,8]
  Shape shape;
};

std::vector<Leaf> ArgumentLeaves(const HloComputation& entry) {
  std::vector<Leaf> leaves;
  for (const HloInstruction* parameter : entry.parameter_instructions()) {
    int64_t element = 0;
    const bool tuple = parameter->shape().IsTuple();
    ForEachArrayLeaf(parameter->shape(), [&](const Shape& shape) {
      std::string name = AotIdentifierFrom(parameter->name());
      if (tuple) absl::StrAppend(&name, "_", element);
      leaves.push_back(
          {name,
           absl::StrCat("parameter ", parameter->parameter_number(), " \"",
                        parameter->name(), "\"",
                        tuple ? absl::StrCat(" leaf ", element) : "", ", ",
                        shape.ToString()),
           shape});
      ++element;
    });
  }
  return leaves;
}

std::vector<Leaf> ResultLeaves(const HloComputation& entry) {
  std::vector<Leaf> leaves;
  const Shape& result = entry.root_instruction()->shape();
  ForEachArrayLeaf(result, [&](const Shape& shape) {
    const int64_t i = leaves.size();
    leaves.push_back({result.IsTuple() ? absl::StrCat("result_", i) : "result",
                      absl::StrCat("result leaf ", i, ", ", shape.ToString()),
                      shape});
  });
  return leaves;
}

std::string LeafConstants(const std::string& upper, const std::string& lower,
                          const char* kind, size_t i, const Leaf& leaf) {
  std::string text = absl::StrCat("// ", kind, "s[", i, "]: ",
                                  leaf.description, "\n");
  absl::StrAppend(&text, "#define ", upper, "_", absl::AsciiStrToUpper(kind),
                  i, "_BYTES ", ShapeUtil::ByteSizeOf(leaf.shape), "\n");
  absl::StrAppend(&text, "#define ", upper, "_", absl::AsciiStrToUpper(kind),
                  i, "_RANK ", leaf.shape.rank(), "\n");
  if (leaf.shape.rank() > 0) {
    absl::StrAppend(&text, "static const int64_t ", lower, "_", kind, i,
                    "_dims[", leaf.shape.rank(), "] = {",
                    absl::StrJoin(leaf.shape.dimensions(), ", "), "};\n");
  }
  return text;
}

// The header's opening: what made it, the target, the guard, and the
// types every mxla header shares.
std::string HeaderPreamble(const AotOptions& options, const HloModule& fused,
                           const std::string& target,
                           const std::string& upper) {
  const std::string& f = options.function;
  std::string h = absl::StrCat(
      "// ", f, ".h: generated by mxla compile",
      options.source.empty() ? "" : absl::StrCat(" from ", options.source),
      " (module ", fused.name(), "). Do not edit.\n// Target: ", target,
      ".\n// Link ", f,
      ".o with -lm; it needs neither mxla nor LLVM.\n#ifndef ", upper,
      "_H_\n#define ", upper, "_H_\n\n#include <stdint.h>\n\n",
      "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  absl::StrAppend(
      &h,
      "#ifndef MXLA_AOT_TYPES_\n#define MXLA_AOT_TYPES_\n"
      "// A kernel: computes units [begin, end) of its work on `buffers`.\n"
      "typedef void (*mxla_aot_kernel)(void* const* buffers, int64_t begin,\n"
      "                                int64_t end);\n"
      "// Must call kernel(buffers, begin, end) on disjoint chunks covering\n"
      "// [0, units), at most max_chunks of them, on any threads, and return\n"
      "// when all have run.\n"
      "typedef void (*mxla_aot_parallel_for)(void* pool, mxla_aot_kernel "
      "kernel,\n"
      "                                      void* const* buffers, int64_t "
      "units,\n"
      "                                      int64_t max_chunks);\n"
      "#endif\n\n");
  return h;
}

// Every buffer's constants: the arguments', the results', and the aliased
// pairs.
std::string HeaderBuffers(const std::string& f, const std::string& upper,
                          const std::vector<Leaf>& args,
                          const std::vector<Leaf>& results,
                          absl::Span<const AliasedLeaf> aliases) {
  std::string h = absl::StrCat(
      "// One buffer per array leaf of the parameters, in "
      "order, each aligned to its element size.\n#define ",
      upper, "_ARG_COUNT ", args.size(), "\n");
  for (size_t i = 0; i < args.size(); ++i) {
    absl::StrAppend(&h, LeafConstants(upper, f, "arg", i, args[i]));
  }
  absl::StrAppend(&h, "// One buffer per array leaf of the result.\n#define ",
                  upper, "_RESULT_COUNT ", results.size(), "\n");
  for (size_t i = 0; i < results.size(); ++i) {
    absl::StrAppend(&h, LeafConstants(upper, f, "result", i, results[i]));
  }
  if (aliases.empty()) return h;
  absl::StrAppend(
      &h,
      "// input_output_alias: the result leaf lives in the argument leaf's\n"
      "// buffer. Passing results[R] == args[A] donates the argument: it is\n"
      "// updated in place and then holds the result. Otherwise args[A] is\n"
      "// copied into results[R] first and left as it was. A donated buffer\n"
      "// must overlap no other argument or result.\n");
  for (const AliasedLeaf& alias : aliases) {
    absl::StrAppend(&h, "#define ", upper, "_RESULT", alias.result_leaf,
                    "_ALIASES_ARG ", alias.argument_leaf, "\n");
  }
  return h;
}

// The typed wrapper NAME_run: the arguments, then the results, then temp,
// each named after its leaf (made unique).
std::string HeaderTypedWrapper(const std::string& f,
                               const std::vector<Leaf>& args,
                               const std::vector<Leaf>& results) {
  std::vector<std::string> parameters, arg_names, result_names;
  absl::flat_hash_set<std::string> used = {"temp", "args", "results"};
  auto unique = [&](std::string name) {
    std::string candidate = name;
    for (int i = 2; !used.insert(candidate).second; ++i) {
      candidate = absl::StrCat(name, "_", i);
    }
    return candidate;
  };
  for (const Leaf& leaf : args) {
    const std::string name = unique(leaf.name);
    parameters.push_back(absl::StrCat(
        "const ", CType(leaf.shape.element_type()), "* ", name));
    arg_names.push_back(absl::StrCat("(const void*)", name));
  }
  for (const Leaf& leaf : results) {
    const std::string name = unique(leaf.name);
    parameters.push_back(
        absl::StrCat(CType(leaf.shape.element_type()), "* ", name));
    result_names.push_back(absl::StrCat("(void*)", name));
  }
  parameters.push_back("void* temp");
  return absl::StrCat(
      "\n// Typed: the arguments, then the results, then temp.\n",
      "static inline void ", f, "_run(", absl::StrJoin(parameters, ", "),
      ") {\n  const void* args[", std::max<size_t>(args.size(), 1), "] = {",
      args.empty() ? "0" : absl::StrJoin(arg_names, ", "),
      "};\n  void* results[", results.size(), "] = {",
      absl::StrJoin(result_names, ", "), "};\n  ", f,
      "(args, results, temp);\n}\n");
}

std::string Header(const AotOptions& options, const HloModule& fused,
                   const std::string& target, int64_t temp_bytes,
                   absl::Span<const AliasedLeaf> aliases) {
  const std::string& f = options.function;
  const std::string upper = absl::AsciiStrToUpper(f);
  const HloComputation& entry = *fused.entry_computation();
  const std::vector<Leaf> args = ArgumentLeaves(entry);
  const std::vector<Leaf> results = ResultLeaves(entry);
  std::string h = HeaderPreamble(options, fused, target, upper);
  absl::StrAppend(&h, HeaderBuffers(f, upper, args, results, aliases));
  absl::StrAppend(
      &h, "// Scratch bytes a call needs at `temp`, 64-byte aligned (NULL "
          "when 0).\n#define ", upper, "_TEMP_BYTES ", temp_bytes, "\n\n");
  absl::StrAppend(
      &h, "// Runs the computation on the calling thread.\nvoid ", f,
      "(const void* const* args, void* const* results, void* temp);\n",
      "// The same, splitting large kernels through `parallel_for` on "
      "`pool`\n// (a null parallel_for runs like ", f, ").\nvoid ", f,
      "_parallel(const void* const* args, void* const* results, void* temp,\n"
      "    mxla_aot_parallel_for parallel_for, void* pool);\n");
  const bool typed = !absl::c_any_of(entry.parameter_instructions(),
                                     [](const HloInstruction* parameter) {
                                       return parameter->shape().IsTuple();
                                     });
  if (typed) absl::StrAppend(&h, HeaderTypedWrapper(f, args, results));
  absl::StrAppend(&h, "\n#ifdef __cplusplus\n}  // extern \"C\"\n#endif\n\n#endif  // ",
                  upper, "_H_\n");
  return h;
}

}  // namespace

namespace {

struct CompiledDriver {
  std::unique_ptr<HloModule> fused;
  std::string target;
  std::string object;
  int64_t temp_bytes = 0;
};

absl::StatusOr<CompiledDriver> CompileDriver(const HloModule& module,
                                             const AotOptions& options) {
  RETURN_IF_ERROR(CheckAotFunctionName(options.function));
  CompileOptions compile = options.compile;
  compile.backend = Backend::kJit;
  ASSIGN_OR_RETURN(CompiledModule optimized, OptimizeModule(module, compile));
  CompiledDriver driver;
  driver.fused = std::move(optimized.module);
  const HloModule& fused = *driver.fused;
  ASSIGN_OR_RETURN(std::unique_ptr<AotModule> aot,
                   AotModule::Create(fused.name(), compile.codegen,
                                     options.target));
  DriverPlanner planner(options.function, compile, *aot);
  ASSIGN_OR_RETURN(auto plan,
                   planner.Plan(fused, module, options.function, "mxla."));
  driver.target = absl::StrCat(
      aot->TargetDescription(),
      options.target.cpu.empty() ? " (this host's features" : " (its features",
      options.target.features.empty()
          ? ")"
          : absl::StrCat(", changed by ", options.target.features, ")"));
  ASSIGN_OR_RETURN(driver.object, aot->Finish(plan.first));
  driver.temp_bytes = plan.second;
  return driver;
}

}  // namespace

absl::StatusOr<AotObject> CompileAotObject(const HloModule& module,
                                           const AotOptions& options) {
  ASSIGN_OR_RETURN(CompiledDriver driver, CompileDriver(module, options));
  return AotObject{std::move(driver.object), driver.temp_bytes};
}

absl::StatusOr<AotArtifacts> CompileAheadOfTime(const HloModule& module,
                                                const AotOptions& options) {
  ASSIGN_OR_RETURN(CompiledDriver driver, CompileDriver(module, options));
  ASSIGN_OR_RETURN(std::vector<AliasedLeaf> aliases,
                   ResolveInputOutputAliases(*driver.fused));
  AotArtifacts artifacts;
  artifacts.object = std::move(driver.object);
  artifacts.header = Header(options, *driver.fused, driver.target,
                            driver.temp_bytes, aliases);
  return artifacts;
}

}  // namespace mxla
