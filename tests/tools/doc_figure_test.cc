// Drawing values in docs/broadcasting.md's notation: cells, alignment,
// brackets, standing vectors, figure layout and the document's indentation.
#include "tools/doc_figure.h"

#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"

namespace mxla::tools {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(DocFigureTest, DrawsScalarsRowsAndMatrices) {
  EXPECT_THAT(*DrawValue(LiteralUtil::CreateR0<float>(7)), ElementsAre("7"));
  EXPECT_THAT(*DrawValue(LiteralUtil::CreateR1<float>({7, 8, 9})),
              ElementsAre("|7 8 9|"));
  EXPECT_THAT(*DrawValue(LiteralUtil::CreateR2<float>({{8, 10, 12},
                                                        {11, 13, 15}})),
              ElementsAre("|8  10 12|", "|11 13 15|"));
  EXPECT_THAT(*DrawValue(LiteralUtil::CreateR1<float>({0.5f, -2})),
              ElementsAre("|0.5 -2|"));
}

TEST(DocFigureTest, AlignsBracketsAndStands) {
  Literal tall = LiteralUtil::CreateR2<float>({{6, 7}, {9, 10}});
  DrawStyle right;
  right.align = Align::kRight;
  EXPECT_THAT(*DrawValue(tall, right), ElementsAre("|6  7|", "|9 10|"));
  EXPECT_THAT(*DrawValue(tall), ElementsAre("|6 7 |", "|9 10|"));
  DrawStyle brackets;
  brackets.brackets = true;
  EXPECT_THAT(*DrawValue(LiteralUtil::CreateR2<float>({{5, 6}}), brackets),
              ElementsAre("[5 6]"));
  DrawStyle standing;
  standing.column = true;
  EXPECT_THAT(*DrawValue(LiteralUtil::CreateR1<float>({7, 8}), standing),
              ElementsAre("|7|", "|8|"));
}

TEST(DocFigureTest, RejectsWhatItCannotDraw) {
  EXPECT_THAT(DrawValue(Literal(ShapeUtil::MakeShape(F32, {1, 1, 1}))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rank 0 to 2, not f32[1,1,1]")));
  EXPECT_THAT(DrawValue(LiteralUtil::CreateR0<int32_t>(1)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("s32[]")));
}

TEST(DocFigureTest, PlacesBlocksSideBySideTopAligned) {
  Block matrix = {"|1 2 3|", "|4 5 6|"};
  EXPECT_EQ(DrawFigure({matrix, OperatorAt(" + "), {"7"}}),
            "|1 2 3| + 7\n|4 5 6|");
  EXPECT_EQ(DrawFigure({{"|1|", "|2|", "|3|"}, OperatorAt(" = ", 1),
                        OperatorOnLines(" +", 3), {"x"}}),
            "|1|    +x\n|2| =  +\n|3|    +");
}

TEST(DocFigureTest, DedentKeepsRelativeIndentation) {
  EXPECT_EQ(Dedent("\n    |7 8 9| ==> |7 8 9|\n                |7 8 9|\n\n"),
            "|7 8 9| ==> |7 8 9|\n            |7 8 9|");
  EXPECT_EQ(Dedent("     |7| x\n     |8|  "), "|7| x\n|8|");
}

}  // namespace
}  // namespace mxla::tools
