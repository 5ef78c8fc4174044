//! The cluster a manifest is judged against: the KubeVirt release and configuration
//! (`profile`), HyperConverged as a source of that configuration (`hyperconverged`), and the
//! common-instancetypes catalog virt-operator deploys (`catalog`).

pub mod catalog;
pub mod hco_release;
pub mod hyperconverged;
pub mod profile;
