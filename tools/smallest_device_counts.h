// The device counts a module runs on when a tool must choose them: the
// replica_count and num_partitions the module names, raised to the smallest
// counts its collectives' groups, pairs and shapes need (XLA's tests often
// set the counts in the test's config, not in the text).
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

// The module's own counts, each raised to what every collective needs in
// its mode (ir/collective_groups.h: with a channel_id, an all-reduce,
// all-gather or reduce-scatter lists replica ids even without
// use_global_device_ids): replica ids (cross-replica and
// cross-replica-and-partition groups, pairs without a channel_id) need
// that many replicas, partition ids
// (cross-partition groups, pairs with a channel_id) that many partitions,
// and flattened ids that many devices (more replicas). Empty groups span a
// whole count: an all-gather's or reduce-scatter's shapes say how large;
// in cross-replica-and-partition mode they also give the partitions (the
// group's size over its listed replicas).
// Collectives whose mode cannot be told are skipped: the compile reports
// them.
DeviceCountsNeeded SmallestDeviceCounts(const HloModule& module);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_SMALLEST_DEVICE_COUNTS_H_
