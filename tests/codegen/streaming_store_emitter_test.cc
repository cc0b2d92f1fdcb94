// The streaming store emitter, executed with every non-temporal store
// counted: rows shorter than the emitter's 512-element block stream too
// (each row's whole aligned vectors take non-temporal stores), the stores
// are as wide as the host's vector registers, and every element is right.
// The count is what a FileCheck test cannot see: a branch that never runs
// looks the same in the IR as one that does.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "codegen/llvm_pipeline.h"
#include "codegen/streaming_store_emitter.h"
#include "gtest/gtest.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "tests/testlib/status_matchers.h"

namespace mxla::codegen {
namespace {

using StreamFunction = void (*)(float* out, int64_t* counter, int64_t begin,
                                int64_t end);

// void stream(ptr out, ptr counter, i64 begin, i64 end): out[p] = p for
// the positions [begin, end) of `dims`, with streaming stores; each
// non-temporal store also adds its lane count to *counter.
class StreamingKernel {
 public:
  explicit StreamingKernel(std::vector<int64_t> dims) {
    InitializeLlvm();
    auto context = std::make_unique<llvm::LLVMContext>();
    auto module = std::make_unique<llvm::Module>("streaming", *context);
    llvm::Type* ptr = llvm::PointerType::getUnqual(*context);
    llvm::Type* i64 = llvm::Type::getInt64Ty(*context);
    auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(*context),
                                         {ptr, ptr, i64, i64}, false);
    auto* function = llvm::Function::Create(
        type, llvm::GlobalValue::ExternalLinkage, "stream", *module);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(*context, "entry", function));
    absl::Status emitted = EmitStreamingRangeLoops(
        b, dims, function->getArg(2), function->getArg(3), F32,
        function->getArg(0),
        [&](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
          llvm::Value* linear = b.getInt64(0);
          for (size_t d = 0; d < dims.size(); ++d) {
            linear = b.CreateAdd(b.CreateMul(linear, b.getInt64(dims[d])),
                                 index[d]);
          }
          return b.CreateSIToFP(linear, b.getFloatTy());
        });
    EXPECT_OK(emitted);
    b.CreateRetVoid();
    Count(*function);

    auto jit = llvm::orc::LLJITBuilder().create();
    EXPECT_TRUE(static_cast<bool>(jit));
    if (!jit) return;
    jit_ = std::move(*jit);
    llvm::cantFail(jit_->addIRModule(llvm::orc::ThreadSafeModule(
        std::move(module), std::move(context))));
    function_ = llvm::cantFail(jit_->lookup("stream")).toPtr<StreamFunction>();
  }

  StreamFunction function() const { return function_; }
  int64_t store_bytes() const { return store_bytes_; }

 private:
  // Before every non-temporal store: *counter += its lanes.
  void Count(llvm::Function& function) {
    std::vector<llvm::StoreInst*> streaming;
    for (llvm::BasicBlock& block : function) {
      for (llvm::Instruction& instruction : block) {
        auto* store = llvm::dyn_cast<llvm::StoreInst>(&instruction);
        if (store != nullptr &&
            store->getMetadata(llvm::LLVMContext::MD_nontemporal)) {
          streaming.push_back(store);
        }
      }
    }
    ASSERT_FALSE(streaming.empty());
    const llvm::DataLayout layout(function.getParent());
    for (llvm::StoreInst* store : streaming) {
      llvm::Type* stored = store->getValueOperand()->getType();
      store_bytes_ = layout.getTypeStoreSize(stored);
      auto* vector = llvm::cast<llvm::FixedVectorType>(stored);
      llvm::IRBuilder<> b(store);
      llvm::Value* counter = function.getArg(1);
      llvm::Value* count = b.CreateLoad(b.getInt64Ty(), counter);
      b.CreateStore(b.CreateAdd(count, b.getInt64(vector->getNumElements())),
                    counter);
    }
  }

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  StreamFunction function_ = nullptr;
  int64_t store_bytes_ = 0;
};

// The elements of [begin, end) that lie in whole vectors aligned to `width`
// bytes inside one row of `row` elements (out is `width`-aligned).
int64_t AlignedVectorElements(int64_t row, int64_t begin, int64_t end,
                              int64_t width) {
  const int64_t lanes = width / 4;
  int64_t elements = 0;
  for (int64_t start = begin; start < end;) {
    const int64_t row_end = std::min(end, (start / row + 1) * row);
    const int64_t first = (start + lanes - 1) / lanes * lanes;
    if (row_end > first) elements += (row_end - first) / lanes * lanes;
    start = row_end;
  }
  return elements;
}

// Runs the kernel over `splits` (the ends of consecutive ranges) and
// returns how many elements it streamed.
int64_t ExpectStreams(std::vector<int64_t> dims,
                      const std::vector<int64_t>& splits) {
  SCOPED_TRACE(::testing::Message() << dims[0] << "x" << dims[1]);
  StreamingKernel kernel(dims);
  if (kernel.function() == nullptr) {
    ADD_FAILURE() << "no kernel";
    return -1;
  }
  EXPECT_EQ(kernel.store_bytes(), HostVectorBytes());
  const int64_t n = dims[0] * dims[1];
  float* out =
      static_cast<float*>(std::aligned_alloc(64, (n * 4 + 63) / 64 * 64));
  int64_t counted = 0, expected = 0;
  int64_t begin = 0;
  for (int64_t end : splits) {
    kernel.function()(out, &counted, begin, end);
    expected +=
        AlignedVectorElements(dims[1], begin, end, HostVectorBytes());
    begin = end;
  }
  EXPECT_EQ(counted, expected);
  for (int64_t i = 0; i < n; ++i) {
    if (out[i] != static_cast<float>(i)) {
      ADD_FAILURE() << "element " << i << " is " << out[i];
      break;
    }
  }
  std::free(out);
  return counted;
}

TEST(StreamingStoreEmitterTest, ShortRowsStreamEveryAlignedVector) {
  // 1 KiB rows: every element streams.
  EXPECT_EQ(ExpectStreams({64, 256}, {64 * 256}), 64 * 256);
  // Rows off the alignment, rows longer than a block, ranges split mid-row.
  EXPECT_GT(ExpectStreams({10, 300}, {3000}), 2500);
  EXPECT_GT(ExpectStreams({3, 1031}, {3093}), 2900);
  EXPECT_GT(ExpectStreams({64, 256}, {1000, 7001, 64 * 256}), 16000);
  // Rows shorter than a vector hold no aligned vector: plain stores only.
  EXPECT_EQ(ExpectStreams({40, 5}, {200}), 0);
}

}  // namespace
}  // namespace mxla::codegen
