#include "tools/hlo_dot.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"

namespace mxla::tools {
namespace {

std::string Escape(const std::string& text) {
  return absl::StrReplaceAll(text, {{"\\", "\\\\"}, {"\"", "\\\""}});
}

std::string ShapeText(const HloInstruction& instruction) {
  return instruction.shape().ToString();
}

// How a node looks, by what the instruction is.
std::string Style(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kParameter:
      return "shape=ellipse, style=filled, fillcolor=\"#dbe9f6\"";
    case HloOpcode::kConstant:
      return "shape=ellipse, style=filled, fillcolor=\"#eeeeee\"";
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kTranspose:
      return "shape=box, style=\"dashed,rounded\", color=\"#888888\", "
             "fontcolor=\"#555555\"";
    case HloOpcode::kFusion:
      return "shape=box, style=\"bold,filled\", fillcolor=\"#fde9c8\"";
    case HloOpcode::kReduce:
      return "shape=box, style=filled, fillcolor=\"#e2f0d9\"";
    default:
      return "shape=box";
  }
}

class DotWriter {
 public:
  explicit DotWriter(const DotOptions& options) : options_(options) {}

  std::string Write(const HloModule& module) {
    out_ << "digraph \"" << Escape(module.name()) << "\" {\n"
         << "  rankdir=TB;\n  node [fontname=\"monospace\", fontsize=10];\n"
         << "  edge [color=\"#555555\"];\n";
    const HloComputation& entry = *module.entry_computation();
    for (const HloInstruction* instruction : entry.MakeInstructionPostOrder()) {
      if (instruction->opcode() == HloOpcode::kFusion &&
          !options_.collapse_fusions) {
        WriteFusionCluster(*instruction);
      } else {
        WriteNode(*instruction, instruction == entry.root_instruction());
      }
    }
    for (const HloInstruction* instruction : entry.instructions()) {
      for (int64_t i = 0; i < instruction->operand_count(); ++i) {
        Edge(*instruction->operand(i), Input(*instruction, i));
      }
    }
    out_ << "}\n";
    return out_.str();
  }

 private:
  std::string Id(const HloInstruction& instruction) {
    auto [it, added] = ids_.try_emplace(&instruction, "");
    if (added) it->second = absl::StrCat("n", ids_.size());
    return it->second;
  }

  void WriteNode(const HloInstruction& instruction, bool root) {
    std::string label = absl::StrCat(instruction.name(), "\\n",
                                     HloOpcodeString(instruction.opcode()),
                                     "\\n", Escape(ShapeText(instruction)));
    if (instruction.opcode() == HloOpcode::kFusion) {
      label = absl::StrCat(label, "\\n",
                           FusionKindString(instruction.fusion_kind()));
    }
    out_ << "  " << Id(instruction) << " [label=\"" << label << "\", "
         << Style(instruction) << (root ? ", peripheries=2" : "") << "];\n";
  }

  // A fusion as a cluster: its body's nodes, its parameters fed by the
  // fusion's operands, and its root standing for the fusion's value.
  void WriteFusionCluster(const HloInstruction& fusion) {
    const HloComputation& body = *fusion.to_apply();
    out_ << "  subgraph cluster_" << Id(fusion) << " {\n"
         << "    label=\"" << Escape(fusion.name()) << " ("
         << FusionKindString(fusion.fusion_kind()) << ")\";\n"
         << "    style=\"rounded,filled\"; fillcolor=\"#fff7e6\"; "
            "color=\"#e0a040\";\n";
    const bool entry_root =
        fusion.parent() != nullptr && fusion.parent()->root_instruction() == &fusion;
    for (const HloInstruction* instruction : body.MakeInstructionPostOrder()) {
      out_ << "  ";
      WriteNode(*instruction,
                entry_root && instruction == body.root_instruction());
      for (const HloInstruction* operand : instruction->operands()) {
        Edge(*operand, Id(*instruction));
      }
    }
    out_ << "  }\n";
    stands_for_[&fusion] = body.root_instruction();
  }

  // The node an entry value is read from (a fusion's body root).
  std::string Output(const HloInstruction& instruction) {
    auto it = stands_for_.find(&instruction);
    return Id(it == stands_for_.end() ? instruction : *it->second);
  }

  // The node that receives operand `i` of an entry instruction.
  std::string Input(const HloInstruction& instruction, int64_t i) {
    if (stands_for_.contains(&instruction)) {
      return Id(*instruction.to_apply()->parameter_instruction(i));
    }
    return Id(instruction);
  }

  void Edge(const HloInstruction& from, const std::string& to) {
    out_ << "  " << Output(from) << " -> " << to << ";\n";
  }

  const DotOptions& options_;
  std::ostringstream out_;
  absl::flat_hash_map<const HloInstruction*, std::string> ids_;
  absl::flat_hash_map<const HloInstruction*, const HloInstruction*> stands_for_;
};

// `dot` on PATH, or empty.
std::string FindDot() {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/dot");
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

}  // namespace

std::string HloModuleToDot(const HloModule& module, const DotOptions& options) {
  return DotWriter(options).Write(module);
}

absl::StatusOr<std::string> RenderSvg(const std::string& dot) {
  const std::string program = FindDot();
  if (program.empty()) {
    return absl::FailedPreconditionError(
        "--emit=svg needs Graphviz's 'dot', which is not on PATH; install it "
        "(Debian: apt-get install graphviz) or use --emit=dot and render the "
        "text elsewhere");
  }
  char input_path[] = "/tmp/mxla-dot-XXXXXX";
  const int fd = mkstemp(input_path);
  if (fd < 0) return absl::InternalError("cannot create a temporary file");
  close(fd);
  { std::ofstream(input_path) << dot; }
  const std::string command =
      absl::StrCat("'", program, "' -Tsvg '", input_path, "'");
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    std::remove(input_path);
    return absl::InternalError(absl::StrCat("cannot run ", program));
  }
  std::string svg;
  char buffer[4096];
  size_t count;
  while ((count = fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
    svg.append(buffer, count);
  }
  const int status = pclose(pipe);
  std::remove(input_path);
  if (status != 0) {
    return absl::InternalError(
        absl::StrCat(program, " failed (exit status ", WEXITSTATUS(status),
                     ")"));
  }
  return svg;
}

}  // namespace mxla::tools
