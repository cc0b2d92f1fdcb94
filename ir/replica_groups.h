// The device groups of a collective (replica_groups={{0,1},{2,3}}) and a
// collective-permute's source_target_pairs ({{0,1},{1,0}}): lists of id
// lists, kept in an attribute as one flat list (the count of lists, then
// each list's length and ids) and printed in XLA's explicit form.
#ifndef MXLA_IR_REPLICA_GROUPS_H_
#define MXLA_IR_REPLICA_GROUPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace mxla {

using IdGroups = std::vector<std::vector<int64_t>>;

inline std::vector<int64_t> EncodeIdGroups(const IdGroups& groups) {
  std::vector<int64_t> flat = {static_cast<int64_t>(groups.size())};
  for (const std::vector<int64_t>& group : groups) {
    flat.push_back(static_cast<int64_t>(group.size()));
    flat.insert(flat.end(), group.begin(), group.end());
  }
  return flat;
}

// The inverse of EncodeIdGroups; an empty or malformed list gives no groups.
inline IdGroups DecodeIdGroups(const std::vector<int64_t>& flat) {
  IdGroups groups;
  if (flat.empty()) return groups;
  size_t at = 1;
  for (int64_t g = 0; g < flat[0] && at < flat.size(); ++g) {
    const int64_t size = flat[at++];
    if (size < 0 || at + size > flat.size()) return {};
    groups.emplace_back(flat.begin() + at, flat.begin() + at + size);
    at += size;
  }
  return groups;
}

inline std::string IdGroupsToString(const IdGroups& groups) {
  std::vector<std::string> parts;
  for (const std::vector<int64_t>& group : groups) {
    parts.push_back(absl::StrCat("{", absl::StrJoin(group, ","), "}"));
  }
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

}  // namespace mxla

#endif  // MXLA_IR_REPLICA_GROUPS_H_
