// Shapes in messages. A model's result can be a tuple of hundreds of arrays
// (a ResNet-50 module returns 321): printed whole, one shape would fill a
// screen, so every message that may meet such a tuple prints its summary.
#ifndef MXLA_IR_SHAPE_SUMMARY_H_
#define MXLA_IR_SHAPE_SUMMARY_H_

#include <string>

#include "ir/shape.h"

namespace mxla {

// Shape::ToString, except that a tuple of more than 8 elements (at any
// depth) shows its first 3 and last 2: "(f32[64,3,7,7], f32[64], f32[64],
// ... 316 more, f32[2048,1000], f32[1000])".
std::string ShapeSummary(const Shape& shape);

}  // namespace mxla

#endif  // MXLA_IR_SHAPE_SUMMARY_H_
