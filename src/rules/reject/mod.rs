//! The rules about a VM's outcome: what KubeVirt's webhooks refuse (KV1001–KV1005, KV1008,
//! KV1009, KV1011), what cannot be resolved or expanded (KV1006, KV1007, KV1010), what the
//! catalog says about the names used (KV2002, KV2003), and the schema refusals of KubeVirt's
//! mutation (KV0015's). A rule's file holds its metadata and how its finding reads: its
//! message and help, the VM field it points at and the places of the instance type or
//! preference it names beside ([`Reported`]). The stage that reproduces KubeVirt (`admission`,
//! `render`, `resolve`) detects the problem; `check::vm` places the finding in the VM's object.

mod spec;

pub mod catalog_content_approximated;
pub mod deprecated_catalog_entry;
pub mod expand_failed;
pub mod infer_from_volume_failed;
pub mod instancetype_conflict;
pub mod invalid_matcher;
pub mod missing_reference_rejected;
pub mod mutation_schema;
pub mod preference_requirement;
pub mod spread_not_divisible;
pub mod unresolved;
pub mod vm_spec_invalid;
pub mod webhook_failure;

pub use spec::{At, Matcher, Related, RelatedField, Reported};
