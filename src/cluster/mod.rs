//! The cluster a manifest is judged against: the KubeVirt release (`version`, with the changes
//! backported to patch releases in `backports`) and configuration (`profile`), HyperConverged as a source of that configuration (`hyperconverged`), and the
//! common-instancetypes catalog virt-operator deploys (`catalog`).

pub mod backports;
pub mod catalog;
pub mod hco_release;
pub mod hyperconverged;
pub mod profile;
pub mod version;
