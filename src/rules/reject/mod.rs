//! The rules of what KubeVirt refuses or cannot use (KV10xx) and of the catalog (KV20xx): what
//! its webhooks refuse of a VM (KV1001–KV1005, KV1008, KV1009, KV1011) or of an instance type
//! or preference (KV1012–KV1014), of a VirtualMachinePool (KV1015) or of the VMs a pool
//! creates (KV1016), what cannot be resolved or expanded (KV1006, KV1007, KV1010), what the
//! catalog does to the names used (KV2001–KV2003), and the schema refusals of KubeVirt's
//! mutation (KV0015's). A rule's file holds its metadata and how its finding reads:
//! its message and help, the field it points at and, for a VM, the places of the instance type
//! or preference it names beside ([`Reported`]). The stage that reproduces KubeVirt
//! (`admission`, `render`, `resolve`) detects the problem; `check::vm` places a VM's finding in
//! its object, `admission::objects` and `resolve::catalog_source` those about an object.

mod spec;

pub mod catalog_content_approximated;
pub mod catalog_name_overwritten;
pub mod deprecated_catalog_entry;
pub mod expand_failed;
pub mod infer_from_volume_failed;
pub mod instancetype_conflict;
pub mod instancetype_object_rejected;
pub mod invalid_instancetype_object;
pub mod invalid_matcher;
pub mod missing_reference_rejected;
pub mod mutation_schema;
pub mod pool_spec_invalid;
pub mod pool_vm_rejected;
pub mod preference_requirement;
pub mod spread_not_divisible;
pub mod spread_ratio_zero;
pub mod unresolved;
pub mod vm_spec_invalid;
pub mod webhook_failure;

pub use spec::{At, Matcher, Related, RelatedField, Reported};
