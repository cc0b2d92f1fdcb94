// Internal to the HLO parser: a fusion's `plan={...}` attribute, the text
// form FusionPlan::ToString prints (ir/fusion_plan.h). The plan and its
// printing are the IR's; reading it back is the text front end's.
#ifndef MXLA_HLO_TEXT_FUSION_PLAN_PARSER_H_
#define MXLA_HLO_TEXT_FUSION_PLAN_PARSER_H_

#include "absl/status/statusor.h"
#include "hlo_text/hlo_lexer.h"
#include "ir/fusion_plan.h"

namespace mxla {

// Parses the text form at `cursor` (the `{` first). Errors are the cursor's
// "L:C: ..." messages: an unknown kind or key, a duplicate or missing key, a
// bad value.
absl::StatusOr<FusionPlan> ParseFusionPlan(TokenCursor& cursor);

}  // namespace mxla

#endif  // MXLA_HLO_TEXT_FUSION_PLAN_PARSER_H_
