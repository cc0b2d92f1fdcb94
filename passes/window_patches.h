// The windowed view convolution and reduce-window expand through: for
// every window position, the base elements under each window tap, as
// index maps over the base (pad, gather, strided slice) that fuse into the
// consumer without a buffer of patches.
#ifndef MXLA_PASSES_WINDOW_PATCHES_H_
#define MXLA_PASSES_WINDOW_PATCHES_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/hlo_computation.h"
#include "ir/window.h"

namespace mxla::expansion {

// `base` has `leading` dimensions the window does not move over, then one
// per window dimension. Returns [leading..., positions..., taps...]: the
// element of `base` under tap t of window position p (padding and base
// dilation holes read `pad_value`, a scalar of base's type). Window
// reversal is not applied (it belongs to the kernel). Requires every
// window position count to be positive.
absl::StatusOr<HloInstruction*> WindowPatches(HloComputation& computation,
                                              HloInstruction* base,
                                              int64_t leading,
                                              const Window& window,
                                              HloInstruction* pad_value);

// `base` padded by `window` (one dimension per base dimension): its
// padding and base dilation as pad's low, high and interior, with
// `pad_value`; `base` itself where the window pads nothing.
absl::StatusOr<HloInstruction*> PadForWindow(HloComputation& computation,
                                             HloInstruction* base,
                                             const Window& window,
                                             HloInstruction* pad_value);

// Every tap of `window` as a multi-index, in row-major order.
std::vector<std::vector<int64_t>> WindowTaps(const Window& window);

// The elements of `padded` (PadForWindow's) that tap `tap` (a multi-index
// into the window) reads at every window position: a strided slice of
// `positions` (WindowOutputSize per dimension). Summed or folded over the
// taps, these are a windowed op as elementwise work.
HloInstruction* WindowTapSlice(HloComputation& computation,
                               HloInstruction* padded, const Window& window,
                               absl::Span<const int64_t> tap,
                               absl::Span<const int64_t> positions);

// Whether some tap of some window position can land in padding or a hole.
bool WindowHasHoles(const Window& window);

// The pred patches of WindowPatches that are true where a tap lands on a
// base element (base_dims: the dimensions of the base).
absl::StatusOr<HloInstruction*> WindowTapMask(
    HloComputation& computation, absl::Span<const int64_t> base_dims,
    int64_t leading, const Window& window);

}  // namespace mxla::expansion

#endif  // MXLA_PASSES_WINDOW_PATCHES_H_
