//! KV3010: HCO's webhook writes an evictionStrategy into a HyperConverged object that sets
//! none (`cluster::hyperconverged` builds the finding).

use super::spec::{DriftFix, DriftRule, NextSync};
use crate::rules::{Category, Rule, Severity};

pub static EVICTION_STRATEGY_DEFAULTED: Rule = Rule {
    code: "KV3010",
    name: "eviction-strategy-defaulted",
    category: Category::Drift,
    severity: Severity::Info,
    summary: "HCO's webhook writes an evictionStrategy into a HyperConverged object that sets none, from the number of worker nodes.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV3010.md"),
    fix: DRIFT.fix.kind(),
    drift: Some(&DRIFT),
};

static DRIFT: DriftRule = DriftRule {
    changes: None,
    next_sync: NextSync::Applies,
    fix: DriftFix::None,
    gathered: None,
};
