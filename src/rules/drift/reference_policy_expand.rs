//! KV3009: with referencePolicy expand or expandAll, KubeVirt's VM controller replaces the
//! matchers with the expanded spec (`controller` builds the finding from the expansion).

use super::spec::{DriftFix, DriftRule, NextSync};
use crate::rules::{Category, Rule, Severity};

pub static REFERENCE_POLICY_EXPAND: Rule = Rule {
    code: "KV3009",
    name: "reference-policy-expand",
    category: Category::Drift,
    severity: Severity::Error,
    summary: "With referencePolicy expand or expandAll (v1.4+), KubeVirt's controller replaces the matchers with the expanded spec; the next sync is refused.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV3009.md"),
    fix: DRIFT.fix.kind(),
    drift: Some(&DRIFT),
};

static DRIFT: DriftRule = DriftRule {
    changes: None,
    next_sync: NextSync::RefusedWhateverIgnored,
    fix: DriftFix::None,
    gathered: None,
};
