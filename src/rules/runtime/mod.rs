//! The runtime rules (KV40xx): data the cluster writes into an object, committed to Git (or, for
//! KV4006, written by the cluster after create), one file each. A rule's file holds its
//! metadata, the fields it reports, how its finding reads and how `kvlint fix` fixes it;
//! `controller::committed_runtime` and `controller` find the fields and build the findings from
//! them.

mod spec;

pub mod inferred_matcher_committed;
pub mod restore_annotation_committed;
pub mod revision_name_in_spec;
pub mod revision_name_written;
pub mod server_metadata_committed;
pub mod status_committed;

pub use spec::RuntimeFix;
