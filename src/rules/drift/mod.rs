//! The drift rules (KV30xx): what the cluster stores differently from Git, one file each.
//! A rule's file holds its metadata, the changed fields it claims, how its finding reads and
//! how `kvlint fix` fixes it ([`DriftRule`]); adding one is its file, its `mod` line below, its line in
//! the registry (`rules/mod.rs`), its explanation (`docs/<CODE>.md`) and its fixtures.

mod spec;

pub mod architecture_defaulted;
pub mod eviction_strategy_defaulted;
pub mod firmware_identity_generated;
pub mod inference_rewritten;
pub mod machine_type_defaulted;
pub mod matcher_kind_defaulted;
pub mod normalized_by_kubevirt;
pub mod pci_topology_annotation;
pub mod reference_policy_expand;
pub mod storage_class_defaulted;

pub use spec::{
    Change, Changes, Claim, DriftFix, DriftRule, Explained, Gathered, NextSync, Written,
};
