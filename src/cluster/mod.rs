//! The cluster a manifest is judged against: the KubeVirt release (`version`) and configuration
//! (`profile`), HyperConverged as a source of that configuration (`hyperconverged`), and the
//! common-instancetypes catalog virt-operator deploys (`catalog`).

pub mod catalog;
pub mod hyperconverged;
pub mod profile;
pub mod version;
