// What a program reads of a sort's results, so that the native sort
// (runtime/native_sort.h) writes no more than that: results nothing reads,
// and, for a top-k (XLA's topk expands to a sort and slices of its first k
// elements), how many leading elements of each row are read at all.
#ifndef MXLA_DRIVER_SORT_READS_H_
#define MXLA_DRIVER_SORT_READS_H_

#include <cstdint>
#include <vector>

#include "ir/hlo_instruction.h"

namespace mxla {

// Which results of `sort` nothing reads: its users are all
// get-tuple-elements and none takes that index (the key hoist-sort-keys
// adds, for one).
std::vector<bool> UnreadSortOutputs(const HloInstruction& sort);

// How many leading elements of each row, along the sorted dimension, any
// reader of `sort`'s results reads: the row's length unless every reader
// is a slice starting at 0 with stride 1 along that dimension, unfused or
// as the only kind of use of a fusion's parameter (the largest limit then).
int64_t SortedPrefixRead(const HloInstruction& sort);

}  // namespace mxla

#endif  // MXLA_DRIVER_SORT_READS_H_
