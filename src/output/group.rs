//! What the human, GitHub and Markdown reports show: one item per problem. `--format json` keeps
//! one finding per field (conformance needs every drift leaf); these reports gather the defaults
//! KubeVirt's webhook writes into one VM (KV3003, KV3004, KV3006, KV3007) into one item with one
//! snippet to commit.

use serde_json::{Map, Value};

use crate::check::Report;
use crate::cluster::profile::KubeVirtVersion;
use crate::diag::{Finding, Severity};
use crate::rules::drift::Gathered;
use crate::rules::{self, DriftKind, FixKind};
use crate::yaml::Segment;
use crate::yaml::edit::Action;

/// One item of a grouped report.
#[derive(Debug)]
pub enum Item<'a> {
    Single(&'a Finding),
    Defaults(Defaults<'a>),
}

/// The webhook's defaults for one VM (as one unit renders it), in report order.
#[derive(Debug)]
pub struct Defaults<'a> {
    pub findings: Vec<&'a Finding>,
    /// The KubeVirt release whose webhook writes them.
    pub version: Option<KubeVirtVersion>,
}

/// The items of a report's findings.
pub fn report_items(report: &Report) -> Vec<Item<'_>> {
    items(
        &report.findings,
        report.profile.as_ref().map(|profile| profile.version),
    )
}

/// The items of `findings` (sorted as every report is), in the same order; a defaults item
/// stands where its first finding stood. `version` is the KubeVirt release checked against.
pub fn items(findings: &[Finding], version: Option<KubeVirtVersion>) -> Vec<Item<'_>> {
    let mut items: Vec<Item<'_>> = Vec::new();
    // Index in `items` of each VM's defaults item.
    let mut groups: Vec<(GroupKey<'_>, usize)> = Vec::new();
    for finding in findings {
        let Some(key) = group_key(finding) else {
            items.push(Item::Single(finding));
            continue;
        };
        if let Some((_, at)) = groups.iter().find(|(k, _)| *k == key) {
            if let Item::Defaults(group) = &mut items[*at] {
                group.findings.push(finding);
            }
            continue;
        }
        groups.push((key, items.len()));
        items.push(Item::Defaults(Defaults {
            findings: vec![finding],
            version,
        }));
    }
    fold_per_unit_defaults(&mut items);
    // A VM with one default is reported as that finding.
    items
        .into_iter()
        .map(|item| match item {
            Item::Defaults(group) if group.findings.len() == 1 => Item::Single(group.findings[0]),
            other => other,
        })
        .collect()
}

/// A default that differs per unit (the firmware identity derived from each rendered name)
/// is reported once per unit, while the others of a shared base are merged over the units:
/// each such finding joins the item of the merged ones that names its object.
fn fold_per_unit_defaults(items: &mut Vec<Item<'_>>) {
    let mut index = 0;
    while index < items.len() {
        let target = match &items[index] {
            Item::Defaults(group) if group.findings.len() == 1 => {
                let lone = group.findings[0];
                items.iter().position(|other| match other {
                    Item::Defaults(merged) => {
                        let anchor = merged.anchor();
                        anchor.instances.len() > 1
                            && anchor.location.file == lone.location.file
                            && anchor.severity == lone.severity
                            && anchor
                                .instances
                                .iter()
                                .any(|i| Some(&i.object) == lone.object.as_ref())
                    }
                    Item::Single(_) => false,
                })
            }
            _ => None,
        };
        match target {
            Some(target) if target != index => {
                let removed = items.remove(index);
                let target = if target > index { target - 1 } else { target };
                if let (Item::Defaults(lone), Item::Defaults(merged)) =
                    (removed, &mut items[target])
                {
                    merged.findings.extend(lone.findings);
                }
            }
            _ => index += 1,
        }
    }
}

type GroupKey<'a> = (
    &'a str,
    Option<&'a crate::diag::ObjectRef>,
    Option<String>,
    Severity,
);

fn group_key(finding: &Finding) -> Option<GroupKey<'_>> {
    let is_default =
        finding.rule.is_webhook_default() && finding.drift == Some(DriftKind::ClusterDefault);
    is_default.then(|| {
        (
            &*finding.location.file,
            finding.object.as_ref(),
            finding.unit_note(),
            finding.severity,
        )
    })
}

impl Defaults<'_> {
    /// The first finding: where the item is reported, and its object, unit and severity.
    pub fn anchor(&self) -> &Finding {
        self.findings[0]
    }

    pub fn codes(&self) -> String {
        let mut codes: Vec<&str> = self.findings.iter().map(|f| f.rule.code).collect();
        codes.sort_unstable();
        codes.dedup();
        codes.join(",")
    }

    /// Every field the item stands for, once (a per-unit finding repeats its fields).
    fn field_paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = self
            .findings
            .iter()
            .flat_map(|f| {
                if f.fields.is_empty() {
                    f.path.iter().cloned().collect()
                } else {
                    f.fields.clone()
                }
            })
            .collect();
        paths.sort_unstable();
        paths.dedup();
        paths
    }

    /// "KubeVirt v1.9 will write 5 fields into web: machine type `q35`, … — commit this:".
    pub fn headline(&self) -> String {
        let anchor = self.anchor();
        let version = self
            .version
            .map(|version| version.to_string())
            .unwrap_or_default();
        let name = if anchor.instances.len() > 1 {
            let names: Vec<&str> = anchor
                .instances
                .iter()
                .map(|i| i.object.name.as_str())
                .collect();
            names.join(" and ")
        } else {
            anchor
                .object
                .as_ref()
                .map_or_else(|| "the VM".to_owned(), |o| o.name.clone())
        };
        let mut described: Vec<String> = self.findings.iter().map(|f| describe(f)).collect();
        described.dedup();
        let count = self.field_paths().len().max(1);
        format!(
            "KubeVirt {version} will write {count} field{} into {name}: {} — commit this:",
            if count == 1 { "" } else { "s" },
            described.join(", ")
        )
    }

    /// The YAML to commit: every safe fix's value, merged into one document.
    pub fn snippet(&self) -> String {
        let mut root = Value::Object(Map::new());
        for finding in &self.findings {
            let Some(fix) = finding.fix.as_ref().filter(|_| is_safe(finding)) else {
                continue;
            };
            for action in &fix.actions {
                if let Action::Set(path, value) = action {
                    insert(&mut root, &path.0, value);
                }
            }
        }
        if root.as_object().is_some_and(Map::is_empty) {
            return String::new();
        }
        crate::yaml::emit::to_yaml(&root)
    }

    /// The item as one finding at its first finding's place: the headline as message, the
    /// snippet and notes as help, every field it stands for.
    pub fn as_finding(&self) -> Finding {
        let mut help = self.snippet();
        for note in self.notes() {
            if !help.is_empty() && !help.ends_with('\n') {
                help.push('\n');
            }
            help.push_str(&note);
        }
        let mut finding = self.anchor().clone();
        finding.message = self.headline();
        finding.help = (!help.is_empty()).then_some(help);
        finding.fields = self.field_paths();
        finding.fix = None;
        finding
    }

    /// What the snippet cannot hold: a value to choose (the firmware identity).
    pub fn notes(&self) -> Vec<String> {
        self.findings
            .iter()
            .filter(|f| !is_safe(f))
            .filter_map(|f| f.help.clone())
            .collect()
    }
}

fn is_safe(finding: &Finding) -> bool {
    rules::fix_kind(finding.rule) == FixKind::Safe
        && finding.fix.as_ref().is_some_and(|f| !f.varies)
}

/// A field and the value KubeVirt writes, in a few words.
fn describe(finding: &Finding) -> String {
    let value = finding.fix.as_ref().and_then(|fix| {
        fix.actions.iter().find_map(|action| match action {
            Action::Set(_, Value::String(s)) => Some(s.clone()),
            _ => None,
        })
    });
    let what = match finding.rule.drift.and_then(|drift| drift.gathered) {
        Some(Gathered::Field(field)) => field,
        Some(Gathered::Generated { one, several }) => {
            return if finding.fields.len() > 1 {
                several
            } else {
                one
            }
            .to_owned();
        }
        None => finding.path.as_deref().unwrap_or(finding.rule.name),
    };
    match value {
        Some(value) => format!("{what} {value}"),
        None => what.to_owned(),
    }
}

/// Sets `value` at `path` in `root`, creating maps on the way; a path through a list index is
/// left out (a snippet cannot say which item it means).
fn insert(root: &mut Value, path: &[Segment], value: &Value) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    let (Segment::Key(key), Value::Object(map)) = (first, root) else {
        return;
    };
    if rest.is_empty() {
        map.insert(key.clone(), value.clone());
        return;
    }
    let child = map
        .entry(key.clone())
        .or_insert_with(|| Value::Object(Map::new()));
    insert(child, rest, value);
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::diag::{Fix, Location, ObjectRef};
    use crate::rules::Rule;
    use crate::yaml::FieldPath;

    fn vm(name: &str) -> ObjectRef {
        ObjectRef {
            api_version: "kubevirt.io/v1".into(),
            kind: "VirtualMachine".into(),
            namespace: Some("ns".into()),
            name: name.into(),
        }
    }

    fn default(rule: &'static Rule, line: u32, keys: &[&str], value: &str, name: &str) -> Finding {
        let path = FieldPath(keys.iter().map(|k| Segment::Key((*k).into())).collect());
        let mut finding = Finding::new(
            rule,
            Location::lines(Arc::from("vm.yaml"), (line, 3), (line, 9)),
            format!("KubeVirt v1.9 writes `{value}`"),
        )
        .with_object(Some(vm(name)))
        .with_path(path.text())
        .with_fix(Some(Fix::new(
            "set".into(),
            vec![Action::Set(path, Value::String(value.into()))],
        )));
        finding.drift = Some(DriftKind::ClusterDefault);
        finding
    }

    #[test]
    fn one_item_per_vm_with_one_snippet() {
        let findings = vec![
            default(
                &rules::ARCHITECTURE_DEFAULTED,
                4,
                &["spec", "template", "spec", "architecture"],
                "amd64",
                "a",
            ),
            default(
                &rules::MACHINE_TYPE_DEFAULTED,
                5,
                &["spec", "template", "spec", "domain", "machine", "type"],
                "q35",
                "a",
            ),
            default(
                &rules::MACHINE_TYPE_DEFAULTED,
                9,
                &["spec", "template", "spec", "domain", "machine", "type"],
                "q35",
                "b",
            ),
        ];
        // The release is the report's, not read from the findings' words.
        let items = items(&findings, Some(KubeVirtVersion::new(1, 8)));
        assert_eq!(items.len(), 2);
        let Item::Defaults(group) = &items[0] else {
            panic!("{items:?}");
        };
        assert_eq!(
            group.headline(),
            "KubeVirt v1.8 will write 2 fields into a: architecture amd64, machine.type q35 — commit this:"
        );
        assert_eq!(
            group.snippet(),
            "spec:\n  template:\n    spec:\n      architecture: amd64\n      domain:\n        machine:\n          type: q35\n"
        );
        assert!(matches!(items[1], Item::Single(f) if f.location.span.start.line == 9));
    }
}
