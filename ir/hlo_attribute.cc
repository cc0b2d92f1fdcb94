#include "ir/hlo_attribute.h"

#include <algorithm>

#include "absl/hash/hash.h"

namespace mxla {
namespace {

constexpr AttrInfo kAttrInfos[] = {
#define MXLA_HLO_ATTR(id, text, type) {AttrId::id, text, AttrType::type},
#include "ir/hlo_attributes.def"
};

// Shared immutable values compare by what they point at.
template <typename T>
bool PointeesEqual(const std::shared_ptr<const T>& a,
                   const std::shared_ptr<const T>& b) {
  if (a == nullptr || b == nullptr) return a == b;
  return *a == *b;
}

bool ValuesEqual(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b);
        if constexpr (std::is_same_v<T, std::shared_ptr<const Literal>> ||
                      std::is_same_v<T, std::shared_ptr<const FusionPlan>>) {
          return PointeesEqual(x, y);
        } else {
          return x == y;
        }
      },
      a);
}

size_t HashValue(const AttrValue& value) {
  return std::visit(
      [](const auto& v) -> size_t {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::shared_ptr<const Literal>>) {
          return v == nullptr ? 0 : absl::HashOf(*v);
        } else if constexpr (std::is_same_v<T,
                                            std::shared_ptr<const FusionPlan>>) {
          return v == nullptr ? 0 : absl::HashOf(v->ToString());
        } else if constexpr (std::is_enum_v<T>) {
          return absl::HashOf(static_cast<int>(v));
        } else {
          return absl::HashOf(v);
        }
      },
      value);
}

}  // namespace

const AttrInfo& GetAttrInfo(AttrId id) {
  return kAttrInfos[static_cast<int>(id)];
}

std::optional<AttrId> AttrIdFromName(absl::string_view name) {
  for (const AttrInfo& info : kAttrInfos) {
    if (info.name == name) return info.id;
  }
  return std::nullopt;
}

const AttrValue* HloAttributes::Find(AttrId id) const {
  for (const auto& [key, value] : entries_) {
    if (key == id) return &value;
  }
  return nullptr;
}

void HloAttributes::Set(AttrId id, AttrValue value) {
  auto it = std::lower_bound(
      entries_.begin(), entries_.end(), id,
      [](const auto& entry, AttrId key) { return entry.first < key; });
  if (it != entries_.end() && it->first == id) {
    it->second = std::move(value);
  } else {
    entries_.insert(it, {id, std::move(value)});
  }
}

void HloAttributes::Erase(AttrId id) {
  entries_.erase(
      std::remove_if(entries_.begin(), entries_.end(),
                     [&](const auto& entry) { return entry.first == id; }),
      entries_.end());
}

bool operator==(const HloAttributes& a, const HloAttributes& b) {
  return std::equal(a.entries_.begin(), a.entries_.end(), b.entries_.begin(),
                    b.entries_.end(), [](const auto& x, const auto& y) {
                      return x.first == y.first &&
                             ValuesEqual(x.second, y.second);
                    });
}

size_t HloAttributes::Hash() const {
  size_t hash = entries_.size();
  for (const auto& [id, value] : entries_) {
    hash = absl::HashOf(hash, static_cast<int>(id), HashValue(value));
  }
  return hash;
}

}  // namespace mxla
