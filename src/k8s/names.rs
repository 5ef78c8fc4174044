//! The rules the API server applies to object names and namespaces
//! (k8s.io/apimachinery `validation`): which rule a kind's name follows, and whether a name
//! follows it. Pure functions; `load` turns a refusal into a KV0007 finding, and the file
//! names kvlint writes are built only from names that pass.

use std::fmt;

use super::Object;
use crate::diag::Finding;
use crate::rules;
use crate::yaml::Node;

const LABEL_MAX: usize = 63;
const SUBDOMAIN_MAX: usize = 253;

/// A naming rule of the API server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    /// RFC 1123 label: lowercase alphanumerics and `-`, alphanumeric at both ends, at most 63
    /// characters (namespaces).
    Dns1123Label,
    /// RFC 1035 label: a DNS-1123 label that starts with a letter (services).
    Dns1035Label,
    /// RFC 1123 subdomain: DNS-1123 labels joined by `.`, at most 253 characters (most kinds,
    /// and every custom resource: the API server validates CR names with this rule).
    Dns1123Subdomain,
    /// What every name must be to appear in a URL path: not `.` or `..`, no `/` or `%`
    /// (RBAC kinds; and kinds kvlint does not know, so that no valid name is refused).
    PathSegment,
}

impl fmt::Display for NameRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NameRule::Dns1123Label => "an RFC 1123 label (lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)",
            NameRule::Dns1035Label => "an RFC 1035 label (lowercase letters, digits and '-', starting with a letter and ending with a letter or digit, at most 63 characters)",
            NameRule::Dns1123Subdomain => "an RFC 1123 subdomain (lowercase letters, digits, '-' and '.', each dot-separated part starting and ending with a letter or digit, at most 253 characters)",
            NameRule::PathSegment => "a path segment (not '.' or '..', without '/' or '%')",
        })
    }
}

/// API groups whose kinds kvlint knows to be validated as DNS-1123 subdomains, apart from the
/// exceptions in `name_rule`: the built-in workload groups and the KubeVirt/CDI custom
/// resources.
fn subdomain_group(group: &str) -> bool {
    matches!(
        group,
        "" | "apps" | "batch" | "storage.k8s.io" | "snapshot.storage.k8s.io"
    ) || group == "kubevirt.io"
        || group.ends_with(".kubevirt.io")
}

/// The rule the API server applies to `metadata.name` of a `kind` in `group`.
pub fn name_rule(group: &str, kind: &str) -> NameRule {
    match (group, kind) {
        ("", "Namespace") => NameRule::Dns1123Label,
        ("", "Service") => NameRule::Dns1035Label,
        ("rbac.authorization.k8s.io", _) => NameRule::PathSegment,
        _ if subdomain_group(group) => NameRule::Dns1123Subdomain,
        _ => NameRule::PathSegment,
    }
}

/// The rule for `metadata.namespace`.
pub const NAMESPACE_RULE: NameRule = NameRule::Dns1123Label;

fn is_alphanumeric(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

fn is_label(text: &str, max: usize, letter_first: bool) -> bool {
    let bytes = text.as_bytes();
    let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) else {
        return false;
    };
    bytes.len() <= max
        && (if letter_first {
            first.is_ascii_lowercase()
        } else {
            is_alphanumeric(first)
        })
        && is_alphanumeric(last)
        && bytes.iter().all(|&c| is_alphanumeric(c) || c == b'-')
}

/// Whether `name` follows `rule`.
pub fn follows(rule: NameRule, name: &str) -> bool {
    match rule {
        NameRule::Dns1123Label => is_label(name, LABEL_MAX, false),
        NameRule::Dns1035Label => is_label(name, LABEL_MAX, true),
        NameRule::Dns1123Subdomain => {
            name.len() <= SUBDOMAIN_MAX
                && name
                    .split('.')
                    .all(|part| is_label(part, SUBDOMAIN_MAX, false))
        }
        NameRule::PathSegment => {
            !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '%'])
        }
    }
}

/// Whether a `generateName` prefix is valid: the API server masks one trailing `-` (a random
/// suffix follows it) and applies the name rule to the rest.
pub fn follows_as_prefix(rule: NameRule, prefix: &str) -> bool {
    let masked = match prefix.strip_suffix('-') {
        Some(rest) if !rest.is_empty() => format!("{rest}a"),
        _ => prefix.to_owned(),
    };
    follows(rule, &masked)
}

/// Whether a name is a placeholder for a later substitution (`${CLUSTER_NAME}` of Flux's
/// `postBuild` or clusterctl, `{{ .name }}` of a template): such objects are variants of a
/// template, not copies of one object, and their names are judged once substituted.
pub fn is_placeholder(name: &str) -> bool {
    name.contains(['$', '{', '}'])
}

/// KV0007 for each name of `object` the API server would refuse (placeholders aside): `metadata.name` (or the
/// `generateName` prefix) by its kind's rule, and the namespace, at the node that holds it (a
/// namespace that was not written, but comes from Kustomize, the configuration or
/// `--namespace`, at `metadata`).
pub fn findings(object: &Object) -> Vec<Finding> {
    let metadata = object.node.get("metadata");
    let field = |key: &str| metadata.and_then(|m| m.get(key));
    let rule = name_rule(&object.group, &object.kind);
    let mut out = Vec::new();
    let mut refuse = |node: Option<&Node>, path: &str, what: String, rule: NameRule| {
        let span = node.or(metadata).map_or(object.node.span, |n| n.span);
        out.push(
            Finding::new(
                &rules::INVALID_OBJECT,
                object.location(span),
                format!("{what} is not {rule}; the API server refuses the object"),
            )
            .with_object(Some(object.object_ref()))
            .with_path(path),
        );
    };
    let name = field("name").and_then(Node::as_str);
    match (name, field("generateName").and_then(Node::as_str)) {
        (Some(name), _) if !is_placeholder(name) && !follows(rule, name) => refuse(
            field("name"),
            "metadata.name",
            format!("{} name {name:?}", object.kind),
            rule,
        ),
        (None, Some(prefix)) if !is_placeholder(prefix) && !follows_as_prefix(rule, prefix) => {
            refuse(
                field("generateName"),
                "metadata.generateName",
                format!("{} generateName {prefix:?}", object.kind),
                rule,
            );
        }
        _ => {}
    }
    if let Some(namespace) = &object.namespace
        && !is_placeholder(namespace)
        && !follows(NAMESPACE_RULE, namespace)
    {
        let (node, what) = if object.namespace_written {
            (field("namespace"), format!("namespace {namespace:?}"))
        } else {
            (None, format!("the namespace it is given, {namespace:?},"))
        };
        refuse(node, "metadata.namespace", what, NAMESPACE_RULE);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        for good in ["a", "web-1", "0", &"a".repeat(63)] {
            assert!(follows(NameRule::Dns1123Label, good), "{good}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "A",
            "a.b",
            "a_b",
            "..",
            "../../x",
            "a\nb",
            "é",
            &"a".repeat(64),
        ] {
            assert!(!follows(NameRule::Dns1123Label, bad), "{bad:?}");
        }
        assert!(!follows(NameRule::Dns1035Label, "0a"));
        assert!(follows(NameRule::Dns1035Label, "a0"));
    }

    #[test]
    fn subdomains() {
        for good in ["u1.medium", "a", "a-b.c-d", &"a".repeat(253)] {
            assert!(follows(NameRule::Dns1123Subdomain, good), "{good}");
        }
        for bad in [
            "",
            ".",
            "..",
            "a..b",
            ".a",
            "a.",
            "needs2G",
            "a/b",
            "web\n::error::x",
            &"a".repeat(254),
        ] {
            assert!(!follows(NameRule::Dns1123Subdomain, bad), "{bad:?}");
        }
    }

    #[test]
    fn path_segments() {
        assert!(follows(NameRule::PathSegment, "system:kubevirt"));
        for bad in ["", ".", "..", "a/b", "100%"] {
            assert!(!follows(NameRule::PathSegment, bad), "{bad:?}");
        }
    }

    #[test]
    fn generate_name_prefixes_may_end_in_a_dash() {
        assert!(follows_as_prefix(NameRule::Dns1123Subdomain, "web-"));
        assert!(follows_as_prefix(NameRule::Dns1123Subdomain, "web--"));
        assert!(!follows_as_prefix(NameRule::Dns1123Subdomain, "Web-"));
        assert!(!follows_as_prefix(NameRule::Dns1123Subdomain, "-"));
        assert!(follows_as_prefix(NameRule::Dns1123Subdomain, "web"));
    }

    #[test]
    fn rules_by_kind() {
        assert_eq!(
            name_rule("kubevirt.io", "VirtualMachine"),
            NameRule::Dns1123Subdomain
        );
        assert_eq!(
            name_rule("instancetype.kubevirt.io", "VirtualMachinePreference"),
            NameRule::Dns1123Subdomain
        );
        assert_eq!(name_rule("", "Namespace"), NameRule::Dns1123Label);
        assert_eq!(name_rule("", "Service"), NameRule::Dns1035Label);
        assert_eq!(
            name_rule("rbac.authorization.k8s.io", "ClusterRole"),
            NameRule::PathSegment
        );
        assert_eq!(name_rule("example.com", "Widget"), NameRule::PathSegment);
    }
}
