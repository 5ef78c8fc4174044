//! `--gitops` and `gitops:`: the GitOps engine whose behaviour drift findings describe, and
//! `reproducible:`; together, the severity of each kind of drift.

use std::str::FromStr;

use crate::rules::{DriftKind, Severity};

/// The GitOps engine (and its diff mode) that applies the manifests (`--gitops`, `gitops:`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GitOps {
    /// Argo CD with its default client-side diff and client-side apply.
    #[default]
    ArgoCd,
    /// Argo CD with ServerSideDiff (`compare-options: ServerSideDiff=true`).
    ArgoCdServerSideDiff,
    /// Argo CD with the `ServerSideApply=true` sync option (structured-merge diff).
    ArgoCdServerSideApply,
    /// Flux's kustomize-controller (server-side apply and dry-run).
    Flux,
}

impl GitOps {
    pub const NAMES: [&'static str; 4] = ["argocd", "argocd-ssd", "argocd-ssa", "flux"];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::ArgoCd => "argocd",
            Self::ArgoCdServerSideDiff => "argocd-ssd",
            Self::ArgoCdServerSideApply => "argocd-ssa",
            Self::Flux => "flux",
        }
    }

    pub fn is_argocd(self) -> bool {
        self != Self::Flux
    }

    /// Whether the engine compares Git's values with the live ones as written, so that a value
    /// the cluster stores differently shows as a difference. Server-side dry-runs go through
    /// KubeVirt's mutating webhook (it runs on updates too) and normalise the same way.
    fn shows_written_values(self) -> bool {
        matches!(self, Self::ArgoCd | Self::ArgoCdServerSideApply)
    }
}

impl FromStr for GitOps {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "argocd" => Ok(Self::ArgoCd),
            "argocd-ssd" => Ok(Self::ArgoCdServerSideDiff),
            "argocd-ssa" => Ok(Self::ArgoCdServerSideApply),
            "flux" => Ok(Self::Flux),
            other => Err(format!(
                "unknown GitOps engine `{other}`: expected one of {}",
                Self::NAMES.join(", ")
            )),
        }
    }
}

/// How drift findings are judged: the engine, and whether cluster defaults matter
/// (`reproducible: true`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DriftPolicy {
    pub gitops: GitOps,
    pub reproducible: bool,
}

impl DriftPolicy {
    /// The severity of a drift finding of `kind`.
    pub fn severity(self, kind: DriftKind) -> Severity {
        match kind {
            DriftKind::SyncBreaking => Severity::Error,
            DriftKind::OutOfSync if self.gitops.shows_written_values() => Severity::Warning,
            DriftKind::ClusterDefault if self.reproducible => Severity::Warning,
            DriftKind::OutOfSync | DriftKind::ClusterDefault => Severity::Info,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severities_follow_the_kind_the_engine_and_reproducible() {
        let argocd = DriftPolicy::default();
        assert_eq!(argocd.severity(DriftKind::SyncBreaking), Severity::Error);
        assert_eq!(argocd.severity(DriftKind::OutOfSync), Severity::Warning);
        assert_eq!(argocd.severity(DriftKind::ClusterDefault), Severity::Info);
        let flux = DriftPolicy {
            gitops: GitOps::Flux,
            reproducible: true,
        };
        assert_eq!(flux.severity(DriftKind::SyncBreaking), Severity::Error);
        assert_eq!(flux.severity(DriftKind::OutOfSync), Severity::Info);
        assert_eq!(flux.severity(DriftKind::ClusterDefault), Severity::Warning);
    }

    #[test]
    fn engines_parse_by_their_names() {
        for name in GitOps::NAMES {
            assert_eq!(name.parse::<GitOps>().map(GitOps::as_str), Ok(name));
        }
        assert!("argo".parse::<GitOps>().is_err());
    }
}
