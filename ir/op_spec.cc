#include "ir/op_spec.h"

namespace mxla {

const AttrSlot* OpSpec::FindAttribute(AttrId id) const {
  for (const AttrSlot& slot : attributes) {
    if (slot.id == id) return &slot;
  }
  return nullptr;
}

int64_t OpSpec::called_computation_count() const {
  int64_t count = 0;
  for (const AttrSlot& slot : attributes) {
    if (slot.use == AttrUse::kIgnored) continue;
    const AttrType type = GetAttrInfo(slot.id).type;
    if (type == AttrType::kComputationList) return -1;
    if (type == AttrType::kComputation) ++count;
  }
  return count;
}

const std::vector<OpSpec>& AllOpSpecs() {
  static const auto* const kTable = new std::vector<OpSpec>{
#define MXLA_ATTR(id, use) AttrSlot{AttrId::id, AttrUse::use}
#define MXLA_ATTR_LIST(...) {__VA_ARGS__}
#define MXLA_HLO_OP(e, text, category, arity, attributes, shape_rule,     \
                    type_rule, cost, fusion, builder)                     \
  OpSpec{HloOpcode::e,         text,                                      \
         HloOpcodeCategory::category, arity,                              \
         MXLA_ATTR_LIST attributes,                                       \
         TypeRule::type_rule,  CostClass::cost,                           \
         FusionClass::fusion,  #builder},
#include "ir/hlo_ops.def"
#undef MXLA_ATTR_LIST
#undef MXLA_ATTR
  };
  return *kTable;
}

const OpSpec& GetOpSpec(HloOpcode opcode) {
  // The table lists opcodes in enum order.
  return AllOpSpecs()[static_cast<int>(opcode)];
}

}  // namespace mxla
