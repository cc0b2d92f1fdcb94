// The device counts a module runs on when a tool must choose them: the
// replica_count and num_partitions the module names, or, for a module that
// names neither (XLA's tests set them in the test's config, not the text),
// the smallest counts its collectives' groups and pairs need.
#ifndef MXLA_TOOLS_SMALLEST_DEVICE_COUNTS_H_
#define MXLA_TOOLS_SMALLEST_DEVICE_COUNTS_H_

#include <cstdint>

#include "ir/hlo_module.h"

namespace mxla::tools {

struct DeviceCountsNeeded {
  int64_t replicas = 1;
  int64_t partitions = 1;
  int64_t devices() const { return replicas * partitions; }
};

// The module's own counts when either is above one; else, over every
// collective: replica ids (cross-replica and cross-replica-and-partition
// groups, pairs without a channel_id) need that many replicas, partition
// ids (cross-partition groups, pairs with a channel_id) that many
// partitions, and flattened ids that many devices (more replicas).
// Collectives whose mode cannot be told are skipped: the compile reports
// them.
DeviceCountsNeeded SmallestDeviceCounts(const HloModule& module);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_SMALLEST_DEVICE_COUNTS_H_
