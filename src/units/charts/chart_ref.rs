//! Flux `HelmChart` objects (source.toolkit.fluxcd.io) that a HelmRelease names with
//! `spec.chartRef`: helm-controller renders the chart the HelmChart builds, whose `spec`
//! (`chart`, `sourceRef`, `valuesFiles`) is the chart template a `spec.chart` would have
//! created.

use std::sync::Arc;

use crate::yaml::{Limits, Node};

/// A HelmChart of the checked files.
#[derive(Clone, Debug)]
pub(super) struct HelmChart {
    name: String,
    namespace: Option<String>,
    spec: Node,
}

/// The HelmCharts in `texts`.
pub(super) fn helm_charts(texts: &[(Arc<str>, String)]) -> Vec<HelmChart> {
    texts
        .iter()
        .filter(|(_, text)| text.contains("HelmChart"))
        .flat_map(|(_, text)| {
            crate::yaml::parse_stream(text, Limits::default())
                .into_iter()
                .flatten()
        })
        .filter_map(|document| helm_chart(&document.root))
        .collect()
}

fn helm_chart(node: &Node) -> Option<HelmChart> {
    let is_helm_chart = node
        .get("apiVersion")
        .and_then(Node::as_str)
        .is_some_and(|v| v.starts_with("source.toolkit.fluxcd.io/"))
        && node.get("kind").and_then(Node::as_str) == Some("HelmChart");
    if !is_helm_chart {
        return None;
    }
    let metadata = node.get("metadata")?;
    Some(HelmChart {
        name: metadata.get("name")?.as_str()?.to_owned(),
        namespace: metadata
            .get("namespace")
            .and_then(Node::as_str)
            .filter(|ns| !ns.is_empty())
            .map(str::to_owned),
        spec: node.get("spec")?.clone(),
    })
}

/// The `spec` of the HelmChart that `chart_ref` (a HelmRelease's `spec.chartRef`) names; its
/// namespace defaults to the release's, `release_namespace`. None for another kind of
/// source (an OCIRepository, an ExternalArtifact) or a HelmChart not in the checked files.
pub(super) fn referenced_spec<'c>(
    chart_ref: &Node,
    release_namespace: Option<&str>,
    charts: &'c [HelmChart],
) -> Option<&'c Node> {
    if chart_ref.get("kind").and_then(Node::as_str) != Some("HelmChart") {
        return None;
    }
    let name = chart_ref.get("name").and_then(Node::as_str)?;
    let namespace = chart_ref
        .get("namespace")
        .and_then(Node::as_str)
        .filter(|ns| !ns.is_empty())
        .or(release_namespace);
    // A HelmChart or a HelmRelease written without a namespace takes the one it is applied
    // in, which the checked files do not say: it matches any.
    charts
        .iter()
        .find(|chart| {
            chart.name == name
                && match (chart.namespace.as_deref(), namespace) {
                    (Some(a), Some(b)) => a == b,
                    _ => true,
                }
        })
        .map(|chart| &chart.spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::yaml::first_root as node;

    #[test]
    fn a_chart_ref_names_a_helm_chart_in_the_release_namespace_by_default() {
        let texts = [(
            Arc::from("charts.yaml"),
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmChart\nmetadata:\n  name: lab\n  namespace: apps\nspec:\n  chart: ./charts/lab\n---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmChart\nmetadata:\n  name: lab\n  namespace: other\nspec:\n  chart: ./charts/other\n---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: oci\n".to_owned(),
        )];
        let charts = helm_charts(&texts);
        assert_eq!(charts.len(), 2);
        let chart_of = |reference: &str, namespace: Option<&str>| {
            referenced_spec(&node(reference), namespace, &charts)
                .and_then(|spec| spec.get("chart")?.as_str().map(str::to_owned))
        };
        assert_eq!(
            chart_of("kind: HelmChart\nname: lab\n", Some("apps")).as_deref(),
            Some("./charts/lab")
        );
        assert_eq!(
            chart_of(
                "kind: HelmChart\nname: lab\nnamespace: other\n",
                Some("apps")
            )
            .as_deref(),
            Some("./charts/other")
        );
        assert_eq!(
            chart_of("kind: HelmChart\nname: lab\n", Some("elsewhere")),
            None
        );
        assert_eq!(
            chart_of("kind: OCIRepository\nname: oci\n", Some("apps")),
            None
        );
        assert_eq!(chart_of("kind: HelmChart\nname: missing\n", None), None);
    }
}
