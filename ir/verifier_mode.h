// Which HLO rules the verifier and the shape rules apply (ir/hlo_verifier.h).
#ifndef MXLA_IR_VERIFIER_MODE_H_
#define MXLA_IR_VERIFIER_MODE_H_

namespace mxla {

// kBuilder: implicit broadcasts allowed; kLowered: XLA's HLO rules.
enum class VerifierMode { kBuilder, kLowered };

}  // namespace mxla

#endif  // MXLA_IR_VERIFIER_MODE_H_
