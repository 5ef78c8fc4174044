//! The checked files that may hold entry points, read once for every kind of unit.

use std::sync::Arc;

use rayon::prelude::*;

use crate::source::Input;

/// The checked files that hold entry points (Argo CD or Flux objects) or variable sources
/// (ConfigMaps, Secrets), with their texts.
pub(super) fn entry_texts(inputs: &[Input]) -> Vec<(Arc<str>, String)> {
    let markers: Vec<memchr::memmem::Finder<'_>> = ENTRY_MARKERS
        .iter()
        .chain(&["kind: ConfigMap", "kind: Secret"])
        .map(memchr::memmem::Finder::new)
        .collect();
    inputs
        .par_iter()
        .filter_map(|input| match input {
            Input::File { path, display } if crate::source::is_manifest_name(path) => {
                // Most files hold none of these: they are not decoded nor kept.
                let bytes = crate::source::read_file_bytes(path).ok()?;
                if !markers.iter().any(|marker| marker.find(&bytes).is_some()) {
                    return None;
                }
                let text = crate::source::decode(bytes).ok()?;
                Some((Arc::clone(display), text))
            }
            _ => None,
        })
        .collect()
}

/// Whether a file's text holds Argo CD or Flux objects (an Application, a Flux
/// Kustomization...).
pub(super) fn is_entry_point(text: &str) -> bool {
    ENTRY_MARKERS.iter().any(|marker| text.contains(marker))
}

/// Text every file holding Argo CD or Flux objects contains. Flux's groups are
/// `kustomize.toolkit.fluxcd.io`, `helm.toolkit.fluxcd.io`, ...
const ENTRY_MARKERS: [&str; 2] = ["apiVersion: argoproj.io/", ".toolkit.fluxcd.io/"];
