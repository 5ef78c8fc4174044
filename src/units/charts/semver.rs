//! Chart versions and the version constraints of `Chart.yaml` dependencies, read as Helm and
//! Flux read them (Masterminds semver v3): `1.2.3`, `^1.2`, `~1.2.0`, `>=1.0 <2`, `1.x`,
//! `1.0 - 1.4`, alternatives joined by `||`; an empty constraint allows any release.

use std::cmp::Ordering;

/// A version: `v1.2.3-rc.1+build` (missing minor and patch are 0; the build is ignored).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Version {
    numbers: [u64; 3],
    prerelease: Vec<String>,
}

impl Version {
    pub(super) fn parse(text: &str) -> Option<Self> {
        let partial = Partial::parse(text)?;
        (partial.wildcard_from.is_none()).then_some(partial.version)
    }

    fn compare(&self, other: &Self) -> Ordering {
        self.numbers.cmp(&other.numbers).then_with(|| {
            match (self.prerelease.is_empty(), other.prerelease.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => compare_prerelease(&self.prerelease, &other.prerelease),
            }
        })
    }
}

fn compare_prerelease(a: &[String], b: &[String]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let order = match (x.parse::<u64>(), y.parse::<u64>()) {
            (Ok(x), Ok(y)) => x.cmp(&y),
            (Ok(_), Err(_)) => Ordering::Less,
            (Err(_), Ok(_)) => Ordering::Greater,
            (Err(_), Err(_)) => x.cmp(y),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    a.len().cmp(&b.len())
}

/// A version of a constraint, whose parts from `wildcard_from` on are missing or `x`/`*`.
#[derive(Clone, Debug)]
struct Partial {
    version: Version,
    wildcard_from: Option<usize>,
}

impl Partial {
    fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let text = text.strip_prefix(['v', 'V']).unwrap_or(text);
        let text = text.split_once('+').map_or(text, |(version, _)| version);
        let (core, prerelease) = match text.split_once('-') {
            Some((core, pre)) if !pre.is_empty() => {
                (core, pre.split('.').map(str::to_owned).collect())
            }
            Some(_) => return None,
            None => (text, Vec::new()),
        };
        let parts: Vec<&str> = core.split('.').collect();
        if parts.is_empty() || parts.len() > 3 {
            return None;
        }
        let mut numbers = [0; 3];
        let mut wildcard_from = None;
        for (n, part) in parts.iter().enumerate() {
            if matches!(*part, "x" | "X" | "*") {
                wildcard_from.get_or_insert(n);
                continue;
            }
            if wildcard_from.is_some()
                || part.is_empty()
                || !part.bytes().all(|b| b.is_ascii_digit())
            {
                return None;
            }
            numbers[n] = part.parse().ok()?;
        }
        if parts.len() < 3 {
            wildcard_from.get_or_insert(parts.len());
        }
        Some(Self {
            version: Version {
                numbers,
                prerelease,
            },
            wildcard_from,
        })
    }
}

/// One comparison of a constraint.
#[derive(Clone, Debug)]
struct Term {
    operator: &'static str,
    bound: Partial,
}

const OPERATORS: [(&str, &str); 11] = [
    (">=", ">="),
    ("=>", ">="),
    ("<=", "<="),
    ("=<", "<="),
    ("!=", "!="),
    ("~>", "~"),
    (">", ">"),
    ("<", "<"),
    ("=", "="),
    ("~", "~"),
    ("^", "^"),
];

impl Term {
    fn parse(text: &str) -> Option<Self> {
        let (operator, rest) = OPERATORS
            .iter()
            .find_map(|(spelling, operator)| Some((*operator, text.strip_prefix(spelling)?)))
            .unwrap_or(("=", text));
        Some(Self {
            operator,
            bound: Partial::parse(rest)?,
        })
    }

    fn allows(&self, version: &Version) -> bool {
        let bound = &self.bound.version;
        // A prerelease satisfies only a constraint that names a prerelease.
        if !version.prerelease.is_empty() && bound.prerelease.is_empty() {
            return false;
        }
        let order = version.compare(bound);
        let [major, minor, _] = version.numbers;
        let [bound_major, bound_minor, bound_patch] = bound.numbers;
        let wildcard = self.bound.wildcard_from;
        let same_major = major == bound_major;
        let same_minor = same_major && minor == bound_minor;
        let within = match wildcard {
            Some(0) => true,
            Some(1) => same_major,
            Some(_) => same_minor,
            None => order == Ordering::Equal,
        };
        match self.operator {
            "=" => within,
            "!=" => !within,
            ">" => match wildcard {
                Some(0) => false,
                Some(1) => major > bound_major,
                Some(_) => major > bound_major || (same_major && minor > bound_minor),
                None => order == Ordering::Greater,
            },
            "<" => order == Ordering::Less,
            ">=" => order != Ordering::Less,
            "<=" => match wildcard {
                Some(0) => true,
                Some(1) => major <= bound_major,
                Some(_) => major < bound_major || (same_major && minor <= bound_minor),
                None => order != Ordering::Greater,
            },
            "~" => {
                order != Ordering::Less
                    && if wildcard == Some(1) {
                        same_major
                    } else {
                        same_minor
                    }
            }
            "^" => {
                order != Ordering::Less
                    && if bound_major > 0 || wildcard == Some(1) {
                        same_major
                    } else if bound_minor > 0 || wildcard == Some(2) {
                        same_minor
                    } else {
                        same_minor && version.numbers[2] == bound_patch
                    }
            }
            _ => false,
        }
    }
}

/// A constraint: alternatives (`||`) of terms that must all hold.
#[derive(Clone, Debug)]
pub(super) struct Constraint(Vec<Vec<Term>>);

impl Constraint {
    /// None when `text` is not a constraint (Helm and Flux refuse the dependency).
    pub(super) fn parse(text: &str) -> Option<Self> {
        let mut alternatives = Vec::new();
        for alternative in text.split("||") {
            let mut terms = Vec::new();
            let words = joined_operators(alternative);
            let mut n = 0;
            while n < words.len() {
                // `1.0 - 2.0`: an inclusive range.
                if words.get(n + 1).is_some_and(|w| w == "-") {
                    let high = words.get(n + 2)?;
                    terms.push(Term::parse(&format!(">={}", words[n]))?);
                    terms.push(Term::parse(&format!("<={high}"))?);
                    n += 3;
                    continue;
                }
                terms.push(Term::parse(&words[n])?);
                n += 1;
            }
            if terms.is_empty() {
                terms.push(Term::parse("*")?);
            }
            alternatives.push(terms);
        }
        Some(Self(alternatives))
    }

    pub(super) fn allows(&self, version: &Version) -> bool {
        self.0
            .iter()
            .any(|terms| terms.iter().all(|term| term.allows(version)))
    }
}

/// The words of one alternative, separated by commas or blanks, an operator written apart
/// from its version (`>= 1.2`) joined to it.
fn joined_operators(alternative: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut pending = String::new();
    for word in alternative
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
    {
        if word != "-" && word.chars().all(|c| "<>=!~^".contains(c)) {
            pending.push_str(word);
            continue;
        }
        words.push(format!("{}{word}", std::mem::take(&mut pending)));
    }
    if !pending.is_empty() {
        words.push(pending);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allows(constraint: &str, version: &str) -> bool {
        Constraint::parse(constraint)
            .unwrap()
            .allows(&Version::parse(version).unwrap())
    }

    #[test]
    fn constraints_are_read_as_helm_reads_them() {
        for (constraint, version, expected) in [
            ("", "0.1.0", true),
            ("*", "3.2.1", true),
            ("0.1.0", "0.1.0", true),
            ("0.1.0", "0.1.1", false),
            ("v0.1", "0.1.9", true),
            ("0.1.x", "0.2.0", false),
            ("1", "1.9.0", true),
            ("^1.2", "1.9.0", true),
            ("^1.2", "2.0.0", false),
            ("^0.2.3", "0.2.9", true),
            ("^0.2.3", "0.3.0", false),
            ("^0.0.3", "0.0.4", false),
            ("~1.2.3", "1.2.9", true),
            ("~1.2.3", "1.3.0", false),
            ("~1", "1.8.0", true),
            (">=1.0 <2", "1.5.0", true),
            (">= 1.0, < 2", "2.0.0", false),
            (">1.2", "1.2.5", false),
            (">1.2", "1.3.0", true),
            ("<=1.2", "1.2.7", true),
            ("!=1.2.3", "1.2.3", false),
            ("1.0 - 1.4", "1.4.0", true),
            ("1.0 - 1.4", "1.5.0", false),
            ("<1 || >=3", "3.0.0", true),
            (">=1.0.0", "1.1.0-rc.1", false),
            (">=1.1.0-rc.0", "1.1.0-rc.1", true),
        ] {
            assert_eq!(
                allows(constraint, version),
                expected,
                "{constraint} {version}"
            );
        }
    }

    #[test]
    fn malformed_versions_and_constraints_are_refused() {
        assert!(Version::parse("1.x").is_none());
        assert!(Version::parse("one").is_none());
        assert!(Version::parse("1.2.3.4").is_none());
        assert!(Constraint::parse(">=banana").is_none());
        assert!(Constraint::parse("1.0 -").is_none());
        assert!(Version::parse("v1.2.3+build.5").is_some());
    }
}
