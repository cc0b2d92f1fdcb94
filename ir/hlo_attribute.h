// The attributes of an instruction: one typed bag instead of a field per
// attribute. Which attributes an op takes, and in which order they print,
// is the op table's business (ir/hlo_ops.def); every attribute's name and
// value type is listed once in ir/hlo_attributes.def. Copying, comparing
// and hashing an instruction's attributes is generic over the bag.
#ifndef MXLA_IR_HLO_ATTRIBUTE_H_
#define MXLA_IR_HLO_ATTRIBUTE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "ir/fusion_plan.h"
#include "ir/hlo_opcode.h"
#include "ir/literal.h"

namespace mxla {

enum class AttrId : int {
#define MXLA_HLO_ATTR(id, text, type) id,
#include "ir/hlo_attributes.def"
};

enum class AttrType {
  kInt64,
  kInt64List,
  kComparisonDirection,
  kFusionKind,
  kComputation,
  kComputationList,
  kIdGroups,
  kLiteral,
  kFusionPlan,
  kName,
  kSkipped,
  kSliceRanges,
  kString,
  kPaddingConfig,
  kWindow,
  kConvDimLabels,
  kShape,  // a shape, parsed and dropped (outfeed_shape)
  kFloat,  // a number (epsilon=0.001), kept as written
};

struct AttrInfo {
  AttrId id;
  absl::string_view name;  // as in HLO text: "dimensions"
  AttrType type;
};

const AttrInfo& GetAttrInfo(AttrId id);
// The attribute spelled `name` in HLO text, if any.
std::optional<AttrId> AttrIdFromName(absl::string_view name);

// A literal or a plan is immutable once it is an attribute, so copies of an
// instruction share it.
using AttrValue = std::variant<int64_t, std::vector<int64_t>,
                               ComparisonDirection, FusionKind,
                               std::shared_ptr<const Literal>,
                               std::shared_ptr<const FusionPlan>, std::string>;

class HloAttributes {
 public:
  // The value of `id`, or null.
  const AttrValue* Find(AttrId id) const;
  bool Has(AttrId id) const { return Find(id) != nullptr; }
  // The value of `id` if present and of type T, else null.
  template <typename T>
  const T* Get(AttrId id) const {
    const AttrValue* value = Find(id);
    return value == nullptr ? nullptr : std::get_if<T>(value);
  }
  void Set(AttrId id, AttrValue value);
  void Erase(AttrId id);

  // Ids in increasing order, each once.
  const absl::InlinedVector<std::pair<AttrId, AttrValue>, 2>& entries() const {
    return entries_;
  }

  // Literals compare bitwise (Literal::operator==), plans by value.
  friend bool operator==(const HloAttributes& a, const HloAttributes& b);
  // Equal for bags that compare equal; not stable across processes.
  size_t Hash() const;

 private:
  absl::InlinedVector<std::pair<AttrId, AttrValue>, 2> entries_;
};

}  // namespace mxla

#endif  // MXLA_IR_HLO_ATTRIBUTE_H_
