//! The rule registry: every finding kvlint can report, as data, in one ordered list; its
//! documentation (`explain`: `kvlint rules`, `kvlint explain`, docs/rules.md).

mod class;
pub mod drift;
mod drift_kind;
pub mod explain;
pub mod reject;
pub mod runtime;
pub mod verdict;

pub use class::{Category, Severity};
pub use drift::DriftRule;
pub use drift_kind::DriftKind;
pub use runtime::RuntimeFix;

/// A rule's metadata. Codes are stable forever and never reused.
#[derive(Debug)]
pub struct Rule {
    pub code: &'static str,
    pub name: &'static str,
    pub category: Category,
    pub severity: Severity,
    /// One line: what the rule flags.
    pub summary: &'static str,
    /// The kvlint release that added the rule.
    pub since: &'static str,
    /// Markdown with the fixed headings What it flags / Why it matters / Example / Fix /
    /// References.
    pub explanation: &'static str,
    /// Whether and how `kvlint fix` fixes the rule's findings.
    pub fix: FixKind,
    /// A drift rule's behaviour: the changes it reports, their words and their fix.
    pub drift: Option<&'static DriftRule>,
}

/// Rules are the same when their codes are (codes are unique, `ALL` checks it).
impl PartialEq for Rule {
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code
    }
}

impl Eq for Rule {}

/// The registry: rules declared here (`NAME = code, name, category, severity, summary[, fix
/// kind];`) and rules declared in a file of their own (`use family::file::NAME;`), in documentation
/// order, which is the order of [`ALL`].
macro_rules! rules {
    (@registry [$($all:ident)*]) => {
        /// Every rule, in documentation order.
        pub static ALL: &[&Rule] = &[$(&$all),*];
    };
    (@registry [$($all:ident)*] use $family:ident :: $file:ident :: $ident:ident; $($rest:tt)*) => {
        pub use $family::$file::$ident;
        rules!(@registry [$($all)* $ident] $($rest)*);
    };
    (@registry [$($all:ident)*]
        $ident:ident = $code:literal, $name:literal, $category:ident, $severity:ident, $summary:literal $(, $fix:ident)?;
        $($rest:tt)*
    ) => {
        pub static $ident: Rule = Rule {
            code: $code,
            name: $name,
            category: Category::$category,
            severity: Severity::$severity,
            summary: $summary,
            since: "0.1.0",
            explanation: include_str!(concat!("docs/", $code, ".md")),
            fix: rules!(@fix $($fix)?),
            drift: None,
        };
        rules!(@registry [$($all)* $ident] $($rest)*);
    };
    (@fix) => { FixKind::None };
    (@fix $fix:ident) => { FixKind::$fix };
    ($($entries:tt)*) => { rules!(@registry [] $($entries)*); };
}

rules! {
    YAML_SYNTAX = "KV0001", "yaml-syntax", Syntax, Error,
        "The document is not valid YAML.";
    DUPLICATE_KEY = "KV0002", "duplicate-key", Syntax, Error,
        "A mapping repeats a key; Kubernetes' strict decoding refuses it.";
    YAML11_AMBIGUOUS_SCALAR = "KV0003", "yaml11-ambiguous-scalar", Syntax, Warning,
        "An unquoted value means something else to Kubernetes (YAML 1.1) than to YAML 1.2 tools.";
    COMPLEX_KEY = "KV0004", "complex-key", Syntax, Error,
        "A mapping key is a collection, which Kubernetes cannot decode.";
    UNREADABLE_FILE = "KV0005", "unreadable-file", Syntax, Error,
        "A file could not be read or is not UTF-8 text.";
    SKIPPED_FILE = "KV0006", "not-a-manifest", Info, Info,
        "A file or document is not a Kubernetes manifest and was skipped.";
    INVALID_OBJECT = "KV0007", "invalid-object", Schema, Error,
        "apiVersion, kind or metadata of an object is malformed.";
    DUPLICATE_OBJECT = "KV0008", "duplicate-object", Schema, Error,
        "Two objects with the same identity would be applied together.";
    WRAPPED_VM = "KV0009", "wrapped-vm", Info, Info,
        "A VirtualMachine inside a template kind that kvlint does not render.";
    DEPRECATED_VM_API = "KV0010", "deprecated-vm-api", Deprecation, Warning,
        "A VirtualMachine uses an API version KubeVirt no longer serves.";
    UNSERVED_API_VERSION = "KV0011", "unserved-api-version", Schema, Error,
        "The object uses an API version the target KubeVirt release does not serve.";
    DEPRECATED_API_VERSION = "KV0012", "deprecated-api-version", Deprecation, Warning,
        "The object uses a deprecated API version.";
    DEPRECATED_FIELD = "KV0013", "deprecated-field", Deprecation, Warning,
        "An instance type or preference uses a deprecated field or value.", Safe;
    UNKNOWN_FIELD = "KV0014", "unknown-field", Schema, Error,
        "A field the schema does not declare; the API server drops it without an error.";
    SCHEMA_VIOLATION = "KV0015", "schema-violation", Schema, Error,
        "A field does not match the schema (type, required, range, pattern); the API server refuses the object.";
    DEPRECATED_RUNNING = "KV0016", "deprecated-running", Deprecation, Warning,
        "spec.running is deprecated in favour of spec.runStrategy.", Safe;
    UNUSED_SUPPRESSION = "KV0017", "unused-suppression", Info, Warning,
        "A `# kvlint: ignore[...]` comment suppresses nothing.";
    INVALID_SUPPRESSION = "KV0018", "invalid-suppression", Info, Warning,
        "A `# kvlint: ignore[...]` comment has no reason or names an unknown rule.";
    INVALID_CONFIG = "KV0019", "invalid-config", Syntax, Error,
        "A setting in .kvlint.yaml is invalid; it is ignored.";
    KUSTOMIZE_BUILD_FAILED = "KV0020", "kustomize-build-failed", Syntax, Error,
        "Kustomize cannot build a unit (a missing resource, a patch that matches nothing): Argo CD and Flux cannot apply it.";
    NEVER_APPLIED = "KV0021", "never-applied", Info, Warning,
        "A manifest in a unit's directory that no kustomization lists: it is never applied.";
    UNIT_NOT_RENDERED = "KV0022", "unit-not-rendered", Info, Info,
        "A unit kvlint does not render (a remote base, a path outside the repository): its files are checked as written.";
    use reject::instancetype_conflict::INSTANCETYPE_CONFLICT;
    use reject::preference_requirement::PREFERENCE_REQUIREMENT;
    use reject::spread_not_divisible::SPREAD_NOT_DIVISIBLE;
    use reject::invalid_matcher::INVALID_MATCHER;
    use reject::infer_from_volume_failed::INFERENCE_FAILED;
    use reject::unresolved::UNRESOLVED_INSTANCETYPE;
    use reject::unresolved::UNRESOLVED_PREFERENCE;
    use reject::vm_spec_invalid::VM_SPEC_INVALID;
    use reject::webhook_failure::WEBHOOK_FAILURE;
    use reject::expand_failed::EXPAND_FAILED;
    use reject::missing_reference_rejected::REFERENCE_REJECTED;
    use reject::invalid_instancetype_object::INVALID_SPEC_OBJECT;
    use reject::instancetype_object_rejected::OBJECT_REJECTED;
    use reject::spread_ratio_zero::SPREAD_RATIO_ZERO;
    use reject::pool_spec_invalid::POOL_SPEC_INVALID;
    use reject::pool_vm_rejected::POOL_VM_REJECTED;
    use reject::catalog_name_overwritten::CATALOG_NAME_OVERWRITTEN;
    use reject::deprecated_catalog_entry::CATALOG_DEPRECATED;
    use reject::catalog_content_approximated::CATALOG_CONTENT_APPROXIMATED;
    use drift::matcher_kind_defaulted::MATCHER_KIND_DEFAULTED;
    use drift::inference_rewritten::INFERENCE_REWRITTEN;
    use drift::machine_type_defaulted::MACHINE_TYPE_DEFAULTED;
    use drift::architecture_defaulted::ARCHITECTURE_DEFAULTED;
    use drift::storage_class_defaulted::STORAGE_CLASS_DEFAULTED;
    use drift::firmware_identity_generated::FIRMWARE_IDENTITY_GENERATED;
    use drift::pci_topology_annotation::PCI_TOPOLOGY_ANNOTATION;
    use drift::normalized_by_kubevirt::NORMALIZED_BY_KUBEVIRT;
    use drift::reference_policy_expand::REFERENCE_POLICY_EXPAND;
    use drift::eviction_strategy_defaulted::EVICTION_STRATEGY_DEFAULTED;
    use runtime::revision_name_in_spec::REVISION_NAME_IN_SPEC;
    use runtime::status_committed::STATUS_COMMITTED;
    use runtime::server_metadata_committed::SERVER_METADATA_COMMITTED;
    use runtime::restore_annotation_committed::RESTORE_ANNOTATION_COMMITTED;
    use runtime::inferred_matcher_committed::INFERRED_MATCHER_COMMITTED;
    use runtime::revision_name_written::REVISION_NAME_WRITTEN;
}

/// Whether `kvlint fix` can fix a rule's findings, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FixKind {
    /// No automatic fix.
    None,
    /// Deterministic: the edit writes what KubeVirt would store, and is applied by default.
    Safe,
    /// Needs a choice (a generated identity); applied only with `--unsafe-fixes`.
    Unsafe,
}

impl std::fmt::Display for FixKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::None => "none",
            Self::Safe => "safe",
            Self::Unsafe => "unsafe",
        })
    }
}

impl Rule {
    /// Whether the rule is one of the defaults KubeVirt's mutating webhook writes into a VM,
    /// which the human, GitHub and Markdown reports gather into one item per VM.
    pub fn is_webhook_default(&self) -> bool {
        self.drift.is_some_and(|drift| drift.gathered.is_some())
    }

    /// Whether the rule's change makes the next sync fail whatever the GitOps engine is told to
    /// ignore (an ignoreDifferences entry cannot prevent it).
    pub fn refuses_sync_whatever_ignored(&self) -> bool {
        self.drift
            .is_some_and(|drift| drift.next_sync == drift::NextSync::RefusedWhateverIgnored)
    }
}

/// How `kvlint fix` handles a rule's findings.
pub(crate) fn fix_kind(rule: &Rule) -> FixKind {
    rule.fix
}

/// Looks a rule up by code (`KV1001`) or name (`instancetype-conflict`), case-insensitively.
pub fn find(code_or_name: &str) -> Option<&'static Rule> {
    ALL.iter().copied().find(|rule| {
        rule.code.eq_ignore_ascii_case(code_or_name) || rule.name.eq_ignore_ascii_case(code_or_name)
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn codes_and_names_are_unique() {
        let mut codes = HashSet::new();
        let mut names = HashSet::new();
        for rule in ALL {
            assert!(codes.insert(rule.code), "duplicate code {}", rule.code);
            assert!(names.insert(rule.name), "duplicate name {}", rule.name);
            assert!(
                rule.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{} is not kebab-case",
                rule.name
            );
        }
    }

    #[test]
    fn fixable_rules_document_their_fix() {
        for rule in ALL.iter().filter(|rule| rule.fix != FixKind::None) {
            assert!(
                rule.explanation.contains("`kvlint fix"),
                "{} does not say what kvlint fix does",
                rule.code
            );
        }
        assert_eq!(fix_kind(&YAML_SYNTAX), FixKind::None);
        assert_eq!(fix_kind(&DEPRECATED_RUNNING), FixKind::Safe);
        assert_eq!(fix_kind(&FIRMWARE_IDENTITY_GENERATED), FixKind::Unsafe);
        assert_eq!(fix_kind(&REFERENCE_POLICY_EXPAND), FixKind::None);
        assert_eq!(fix_kind(&REVISION_NAME_IN_SPEC), FixKind::Safe);
        assert_eq!(fix_kind(&REVISION_NAME_WRITTEN), FixKind::None);
    }

    #[test]
    fn the_drift_rules_are_the_drift_category() {
        for rule in ALL {
            assert_eq!(
                rule.drift.is_some(),
                rule.category == Category::Drift,
                "{}",
                rule.code
            );
        }
    }

    #[test]
    fn only_the_controller_s_expansion_refuses_the_sync_whatever_is_ignored() {
        let refusing: Vec<&str> = ALL
            .iter()
            .filter(|rule| rule.refuses_sync_whatever_ignored())
            .map(|rule| rule.code)
            .collect();
        assert_eq!(refusing, ["KV3009"]);
        assert_eq!(
            INFERENCE_REWRITTEN.drift.map(|drift| drift.next_sync),
            Some(drift::NextSync::Refused)
        );
    }

    #[test]
    fn finds_by_code_or_name() {
        assert_eq!(
            find("kv1001").map(|r| r.name),
            Some("instancetype-conflict")
        );
        assert_eq!(find("duplicate-key").map(|r| r.code), Some("KV0002"));
        assert!(find("nope").is_none());
    }
}
