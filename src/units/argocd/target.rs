//! One source of an Application that kvlint renders: the source as the repo server sees it
//! (the Application's, with the directory's override files merged in) and where each of its
//! options is written.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value as Json;

use super::App;
use super::overrides::{self, Override};
use crate::diag::{Finding, Location, UnitKind, UnitRef};
use crate::rules;
use crate::yaml::{Node, Span};

/// One source of an Application that kvlint renders.
#[derive(Clone, Debug)]
pub(crate) struct Target {
    pub app: Arc<App>,
    /// The source as the repo server renders it: the override files merged into `written`.
    pub source: Node,
    /// The source as the Application writes it.
    pub written: Node,
    /// The override files merged into `source`, in merge order.
    pub overrides: Arc<[Override]>,
    /// The source's directory, as the report names paths.
    pub dir: PathBuf,
    /// The repository's root, as the report names paths.
    pub root: PathBuf,
}

impl Target {
    pub(crate) fn unit(&self) -> Arc<UnitRef> {
        Arc::new(UnitRef {
            kind: UnitKind::ArgoCd,
            path: crate::units::display_dir(&self.dir),
            via: Some(self.app.via.clone()),
        })
    }

    /// The namespace objects without one are applied in.
    pub(crate) fn namespace<'a>(&'a self, default: &'a str) -> &'a str {
        self.app.destination_namespace().unwrap_or(default)
    }

    pub(super) fn options(&self) -> Json {
        self.source
            .get("kustomize")
            .map_or(Json::Null, Node::to_json)
    }

    /// Where the `kustomize` option `option` is written (else the `kustomize` block, else the
    /// Application).
    pub(super) fn option_location(&self, option: &str) -> Location {
        self.located(&["kustomize", option])
    }

    /// Where the field `path` of the merged source is written: in the last override file that
    /// sets it, else in the Application (the deepest entry of the path that is written).
    pub(crate) fn located(&self, path: &[&str]) -> Location {
        let mut best: Option<(usize, &Arc<str>, Span)> = None;
        let candidates = self
            .overrides
            .iter()
            .rev()
            .map(|o| (&o.file, &o.root))
            .chain([(&self.app.file, &self.written)]);
        for (file, root) in candidates {
            if let Some((depth, span)) = overrides::reach(root, path)
                && best.as_ref().is_none_or(|(deepest, _, _)| depth > *deepest)
            {
                best = Some((depth, file, span));
            }
        }
        match best {
            Some((_, file, span)) => Location {
                file: Arc::clone(file),
                span,
            },
            None => Location {
                file: Arc::clone(&self.app.file),
                span: self.app.span,
            },
        }
    }

    /// The `kustomize` options each file contributes to the merged source, as the layers a
    /// rendered field is attributed to: the Application's, then each override file's (file,
    /// text, its `kustomize` block without what a later file replaces).
    pub(crate) fn kustomize_layers(&self) -> Vec<(Arc<str>, Arc<str>, Node)> {
        let files: Vec<(&Arc<str>, &Arc<str>, &Node)> =
            [(&self.app.file, &self.app.text, &self.written)]
                .into_iter()
                .chain(self.overrides.iter().map(|o| (&o.file, &o.text, &o.root)))
                .collect();
        let mut layers = Vec::new();
        for (at, (file, text, root)) in files.iter().enumerate() {
            let later: Vec<&Node> = files[at + 1..].iter().map(|(_, _, root)| *root).collect();
            let Some(kustomize) = overrides::contribution(root, &later)
                .and_then(|left| left.get("kustomize").cloned())
                .filter(|k| k.as_map().is_some_and(|entries| !entries.is_empty()))
            else {
                continue;
            };
            layers.push((Arc::clone(file), Arc::clone(text), kustomize));
        }
        layers
    }

    pub(super) fn finding(
        &self,
        rule: &'static rules::Rule,
        span: Span,
        message: String,
    ) -> Finding {
        self.app.finding(rule, span, message)
    }
}
