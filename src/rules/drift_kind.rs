//! The kinds of predicted drift, by what a GitOps engine does with them (the `drift` field of
//! drift findings; `controller::drift` decides the kind of each change).

/// What the user of a GitOps engine sees of a predicted change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DriftKind {
    /// Git sets a value KubeVirt rewrites so that the next apply (or dry-run) of the same
    /// manifest is refused.
    SyncBreaking,
    /// Git sets a value that the cluster stores differently.
    OutOfSync,
    /// KubeVirt fills a field that Git does not set.
    ClusterDefault,
}

impl DriftKind {
    /// The name in reports (`drift` in JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SyncBreaking => "sync-breaking",
            Self::OutOfSync => "out-of-sync",
            Self::ClusterDefault => "cluster-default",
        }
    }
}

impl std::fmt::Display for DriftKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
