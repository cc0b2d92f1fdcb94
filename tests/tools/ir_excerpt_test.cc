// Picking the vector loop out of a kernel's LLVM IR.
#include "tools/ir_excerpt.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mxla::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kKernel[] = R"(define void @k(ptr %0) {
entry:
  %1 = load <4 x float>, ptr %0, align 4
  br label %loop

loop:                                             ; preds = %loop, %entry
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %p = getelementptr float, ptr %0, i64 %i
  %v = load <8 x float>, ptr %p, align 4, !alias.scope !0, !noalias !3
  %w = fadd <8 x float> %v, %v
  store <8 x float> %w, ptr %p, align 4, !alias.scope !3
  %next = add i64 %i, 8
  %done = icmp eq i64 %next, 64
  br i1 %done, label %exit, label %loop

exit:                                             ; preds = %loop
  ret void
}
)";

TEST(IrExcerptTest, PrefersTheVectorLoopAndDropsPlumbing) {
  std::string excerpt = VectorLoopExcerpt(kKernel, 10);
  EXPECT_EQ(excerpt,
            "loop:\n"
            "  %v = load <8 x float>, ptr %p, align 4\n"
            "  %w = fadd <8 x float> %v, %v\n"
            "  store <8 x float> %w, ptr %p, align 4\n"
            "  %next = add i64 %i, 8\n"
            "  %done = icmp eq i64 %next, 64\n"
            "  br i1 %done, label %exit, label %loop\n");
}

TEST(IrExcerptTest, CutsLongBlocks) {
  std::string excerpt = VectorLoopExcerpt(kKernel, 2);
  EXPECT_THAT(excerpt, HasSubstr("fadd <8 x float>"));
  EXPECT_THAT(excerpt, Not(HasSubstr("store")));
  EXPECT_THAT(excerpt, HasSubstr("... (4 more lines)"));
}

TEST(IrExcerptTest, FallsBackToStraightLineVectorCode) {
  std::string straight = R"(entry:
  %1 = load <2 x float>, ptr %0, align 4
  ret void
)";
  EXPECT_EQ(VectorLoopExcerpt(straight, 5),
            "entry:\n  %1 = load <2 x float>, ptr %0, align 4\n  ret void\n");
  EXPECT_EQ(VectorLoopExcerpt("entry:\n  %1 = fadd float %0, %0\n", 5), "");
}

}  // namespace
}  // namespace mxla::tools
