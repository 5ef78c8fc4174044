//! The OpenShift Virtualization / HyperConverged Cluster Operator (`hco.kubevirt.io`
//! `HyperConverged`) as the source of the cluster profile. HCO owns the `KubeVirt` CR and
//! overwrites its spec with one it generates from the HyperConverged object (`NewKubeVirt`,
//! `getKVConfig` in `controllers/handlers/kubevirt.go`), then applies the object's
//! `kubevirt.kubevirt.io/jsonpatch` annotation to the whole generated CR. kvlint generates the
//! same CR for the HCO release that ships the target KubeVirt release (`hco_release`).
//!
//! Not modelled, because they come from the cluster rather than the object: machine types and
//! the default architecture (HCO's operator environment and the nodes: set them in `cluster:`
//! `architectureConfiguration`), KVM emulation, gates HCO adds for cluster state
//! (`SecureExecution` with s390x workers, `ExternalNetResourceInjection` once the network
//! resources injector is ready), the worker-node count behind the `evictionStrategy` HCO's
//! webhook writes into the HyperConverged object (`Environment`: `.kvlint.yaml`
//! `hyperconverged:`; unknown, kvlint renders KubeVirt's default and reports it), node
//! placement, TLS, certificate rotation, the product version, and the typed round trip after
//! the patch (unknown fields the patch adds are dropped by HCO, kept by kvlint).

mod findings;
mod generate;
mod generated;
mod jsonpatch;
mod object;
mod read;
mod webhook;

pub use findings::{findings, machine_type_note};
pub use generate::{Generation, generate, kubevirt_configuration};
pub use jsonpatch::{CopyLimitExceeded, PatchError};
pub use object::{ClusterSetting, GROUP, KIND, environment_configuration, is_hyperconverged};
pub use webhook::{Environment, webhook_eviction_strategy};

#[cfg(test)]
mod tests;
