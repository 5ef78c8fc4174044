//! Which rules report: `--select`, `--extend-select`, `--ignore` and `per-file-ignores`, with
//! ruff's semantics. A selector names a rule (code or name), a code prefix (`KV1`, `KV30`), a
//! category (`reject`, `drift`, …) or every rule (`ALL`). Settings come in layers (the
//! configuration file, then the command line): a layer's `select` replaces the rules enabled so
//! far, `extend-select` adds to them and `ignore` removes from them; for one rule, the most
//! specific selector of a layer wins, and `ignore` wins a tie.

use std::fmt;

use crate::diag::Finding;
use crate::rules::{self, Category, Rule};

/// Every category, as `kvlint rules` names them.
const CATEGORIES: [Category; 9] = [
    Category::Syntax,
    Category::Schema,
    Category::Reject,
    Category::Unresolved,
    Category::Runtime,
    Category::Drift,
    Category::Deprecation,
    Category::Catalog,
    Category::Info,
];

/// What a selector matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    All,
    Category(Category),
    /// Upper-case code prefix, at least `KV` and one digit.
    Prefix(&'static str),
    Rule(&'static Rule),
}

/// One selector, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    text: String,
    target: Target,
}

impl Selector {
    /// Parses a code, code prefix, rule name, category or `ALL`; the error says why not.
    pub fn parse(text: &str) -> Result<Self, UnknownSelector> {
        let trimmed = text.trim();
        let target = if trimmed.eq_ignore_ascii_case("ALL") {
            Target::All
        } else if let Some(rule) = rules::find(trimmed) {
            Target::Rule(rule)
        } else if let Some(category) = CATEGORIES
            .iter()
            .find(|category| category.as_str().eq_ignore_ascii_case(trimmed))
        {
            Target::Category(*category)
        } else {
            Target::Prefix(prefix_of(trimmed).ok_or_else(|| UnknownSelector(trimmed.to_owned()))?)
        };
        Ok(Self {
            text: trimmed.to_owned(),
            target,
        })
    }

    /// Whether the selector covers `rule`.
    pub fn matches(&self, rule: &Rule) -> bool {
        match self.target {
            Target::All => true,
            Target::Category(category) => rule.category == category,
            Target::Prefix(prefix) => rule.code.starts_with(prefix),
            Target::Rule(selected) => selected == rule,
        }
    }

    /// How narrowly the selector names rules: `ALL` < a category < `KV1` < `KV10` < a rule.
    fn specificity(&self) -> usize {
        match self.target {
            Target::All => 0,
            Target::Category(_) => 1,
            Target::Prefix(prefix) => prefix.len(),
            Target::Rule(_) => usize::MAX,
        }
    }
}

impl Selector {
    /// The selector of one rule, as `rules: {CODE: off}` names it.
    pub fn rule(rule: &'static Rule) -> Self {
        Self {
            text: rule.code.to_owned(),
            target: Target::Rule(rule),
        }
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The code prefix `text` spells, when some rule's code starts with it.
fn prefix_of(text: &str) -> Option<&'static str> {
    let upper = text.to_ascii_uppercase();
    let digits = upper.strip_prefix("KV")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    rules::ALL
        .iter()
        .find(|rule| rule.code.starts_with(&upper))
        .map(|rule| &rule.code[..upper.len()])
}

/// A selector that names no rule, code prefix, rule name or category.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is no rule code, code prefix, rule name or category (see `kvlint rules`; categories: {categories})", categories = category_list())]
pub struct UnknownSelector(pub String);

fn category_list() -> String {
    let categories: Vec<&str> = CATEGORIES.iter().map(|c| c.as_str()).collect();
    categories.join(", ")
}

/// One layer of settings: the configuration file's, or the command line's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layer {
    pub select: Option<Vec<Selector>>,
    pub extend_select: Vec<Selector>,
    pub ignore: Vec<Selector>,
}

impl Layer {
    fn is_empty(&self) -> bool {
        self.select.is_none() && self.extend_select.is_empty() && self.ignore.is_empty()
    }

    /// Whether this layer enables (`Some(true)`), disables (`Some(false)`) or leaves `rule`
    /// as the layers before it left it (`None`).
    fn decides(&self, rule: &Rule) -> Option<bool> {
        let most_specific = |selectors: &mut dyn Iterator<Item = &Selector>| {
            selectors
                .filter(|selector| selector.matches(rule))
                .map(Selector::specificity)
                .max()
        };
        let selected = most_specific(
            &mut self
                .select
                .iter()
                .flatten()
                .chain(self.extend_select.iter()),
        );
        let ignored = most_specific(&mut self.ignore.iter());
        match (selected, ignored) {
            (_, Some(ignore)) if selected.is_none_or(|select| ignore >= select) => Some(false),
            (Some(_), _) => Some(true),
            // A problem in the configuration itself must not vanish because a `select` (perhaps
            // the very one with the mistake) leaves it out: only `ignore` silences KV0019.
            _ if self.select.is_some() && *rule != rules::INVALID_CONFIG => Some(false),
            _ => None,
        }
    }
}

/// A path glob of `per-file-ignores` and the selectors it ignores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerFileIgnore {
    pub glob: String,
    pub selectors: Vec<Selector>,
}

/// The rules that report, resolved from every layer, and the per-file ignores.
#[derive(Clone, Debug, Default)]
pub struct RuleFilter {
    /// Codes of the rules disabled; empty when every rule reports.
    disabled: Vec<&'static str>,
    per_file: Vec<(globset::GlobMatcher, bool, Vec<Selector>)>,
}

impl RuleFilter {
    /// Resolves `layers` in order (each may override the ones before it).
    pub fn new(layers: &[&Layer], per_file_ignores: &[PerFileIgnore]) -> Self {
        let disabled = if layers.iter().all(|layer| layer.is_empty()) {
            Vec::new()
        } else {
            rules::ALL
                .iter()
                .filter(|rule| {
                    !layers.iter().fold(true, |enabled, layer| {
                        layer.decides(rule).unwrap_or(enabled)
                    })
                })
                .map(|rule| rule.code)
                .collect()
        };
        let per_file = per_file_ignores
            .iter()
            .filter_map(|entry| {
                let glob = globset::GlobBuilder::new(&entry.glob)
                    .literal_separator(true)
                    .build()
                    .ok()?;
                Some((
                    glob.compile_matcher(),
                    !entry.glob.contains('/'),
                    entry.selectors.clone(),
                ))
            })
            .collect();
        Self { disabled, per_file }
    }

    /// Whether `rule` reports in `file` (the path as the report prints it).
    pub fn reports(&self, rule: &Rule, file: &str) -> bool {
        if self.disabled.contains(&rule.code) {
            return false;
        }
        !self.per_file.iter().any(|(glob, by_name, selectors)| {
            let name = file.rsplit('/').next().unwrap_or(file);
            (glob.is_match(file) || (*by_name && glob.is_match(name)))
                && selectors.iter().any(|selector| selector.matches(rule))
        })
    }

    /// Drops the findings of rules that do not report.
    pub fn retain(&self, findings: &mut Vec<Finding>) {
        if self.disabled.is_empty() && self.per_file.is_empty() {
            return;
        }
        findings.retain(|finding| self.reports(finding.rule, &finding.location.file));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selectors(texts: &[&str]) -> Vec<Selector> {
        texts.iter().map(|t| Selector::parse(t).unwrap()).collect()
    }

    fn enabled(layers: &[&Layer]) -> Vec<&'static str> {
        let filter = RuleFilter::new(layers, &[]);
        // KV0019 reports unless ignored by name (a `select` never hides it).
        rules::ALL
            .iter()
            .filter(|rule| rule.code != rules::INVALID_CONFIG.code)
            .filter(|rule| filter.reports(rule, "a.yaml"))
            .map(|rule| rule.code)
            .collect()
    }

    #[test]
    fn parses_codes_prefixes_names_and_categories() {
        let rule = rules::find("KV1001").unwrap();
        for text in [
            "KV1001",
            "kv1001",
            "KV1",
            "KV10",
            "instancetype-conflict",
            "reject",
            "ALL",
        ] {
            assert!(Selector::parse(text).unwrap().matches(rule), "{text}");
        }
        assert!(!Selector::parse("drift").unwrap().matches(rule));
        for text in ["KV9", "KV", "nothing", "KV1x", ""] {
            let err = Selector::parse(text).unwrap_err();
            assert_eq!(err, UnknownSelector(text.to_owned()));
            assert!(err.to_string().contains("no rule code"), "{text}: {err}");
        }
    }

    #[test]
    fn select_replaces_extend_adds_ignore_removes() {
        assert_eq!(enabled(&[]).len(), rules::ALL.len() - 1);
        let only_drift = Layer {
            select: Some(selectors(&["drift"])),
            ..Layer::default()
        };
        let drift = enabled(&[&only_drift]);
        assert!(!drift.is_empty());
        assert!(
            drift
                .iter()
                .all(|code| rules::find(code).unwrap().category == Category::Drift)
        );
        let plus = Layer {
            extend_select: selectors(&["KV1001"]),
            ignore: selectors(&["KV3"]),
            ..Layer::default()
        };
        let both = enabled(&[&only_drift, &plus]);
        assert!(both.contains(&"KV1001"));
        assert!(!both.iter().any(|code| code.starts_with("KV3")), "{both:?}");
    }

    #[test]
    fn the_more_specific_selector_wins_and_ignore_wins_a_tie() {
        let layer = Layer {
            select: Some(selectors(&["KV1001"])),
            ignore: selectors(&["reject"]),
            ..Layer::default()
        };
        assert_eq!(enabled(&[&layer]), ["KV1001"]);
        let tie = Layer {
            extend_select: selectors(&["KV1001"]),
            ignore: selectors(&["instancetype-conflict"]),
            ..Layer::default()
        };
        assert!(!enabled(&[&tie]).contains(&"KV1001"));
    }

    #[test]
    fn a_later_select_resets_earlier_ignores() {
        let config = Layer {
            ignore: selectors(&["KV1001"]),
            ..Layer::default()
        };
        let cli = Layer {
            select: Some(selectors(&["KV1"])),
            ..Layer::default()
        };
        assert!(enabled(&[&config, &cli]).contains(&"KV1001"));
        assert!(!enabled(&[&config]).contains(&"KV1001"));
    }

    #[test]
    fn a_select_never_hides_problems_in_the_configuration() {
        let config = &rules::INVALID_CONFIG;
        let layer = Layer {
            select: Some(selectors(&["drift"])),
            ..Layer::default()
        };
        assert!(RuleFilter::new(&[&layer], &[]).reports(config, ".kvlint.yaml"));
        let ignored = Layer {
            ignore: selectors(&["KV0019"]),
            ..Layer::default()
        };
        assert!(!RuleFilter::new(&[&ignored], &[]).reports(config, ".kvlint.yaml"));
    }

    #[test]
    fn per_file_ignores_match_the_reported_path_or_a_bare_file_name() {
        let rule = rules::find("KV1001").unwrap();
        let filter = RuleFilter::new(
            &[],
            &[
                PerFileIgnore {
                    glob: "apps/legacy/**".to_owned(),
                    selectors: selectors(&["reject"]),
                },
                PerFileIgnore {
                    glob: "old-*.yaml".to_owned(),
                    selectors: selectors(&["KV1001"]),
                },
            ],
        );
        assert!(!filter.reports(rule, "apps/legacy/vm.yaml"));
        assert!(!filter.reports(rule, "apps/web/old-vm.yaml"));
        assert!(filter.reports(rule, "apps/web/vm.yaml"));
        assert!(filter.reports(rules::find("KV3006").unwrap(), "apps/legacy/vm.yaml"));
    }
}
