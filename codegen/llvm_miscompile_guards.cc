#include "codegen/llvm_miscompile_guards.h"

#include <memory>

#include "llvm/ADT/Any.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Function.h"

namespace mxla::codegen {

void GuardAgainstLlvmMiscompiles(llvm::PassInstrumentationCallbacks& callbacks) {
  // The functions the SLP vectorizer has run on: in the default pipelines
  // the full VectorCombine follows it, the early one (TryEarlyFoldsOnly, no
  // shuffle folds) precedes it.
  auto vectorized = std::make_shared<llvm::DenseSet<const llvm::Function*>>();
  callbacks.registerShouldRunOptionalPassCallback(
      [vectorized](llvm::StringRef pass, llvm::Any ir) {
        const auto* function = llvm::any_cast<const llvm::Function*>(&ir);
        if (function == nullptr) return true;
        if (pass == "SLPVectorizerPass") vectorized->insert(*function);
        return !(pass == "VectorCombinePass" && vectorized->contains(*function));
      });
}

}  // namespace mxla::codegen
