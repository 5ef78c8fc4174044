//! KubeVirt releases: `vX.Y` (the first release of a minor line, `vX.Y.0`, as the conformance
//! sets name releases) or a patch release `vX.Y.Z`, and the changes
//! KubeVirt backported to patch releases.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use crate::model::TopologyNames;

/// A KubeVirt release. Comparisons order releases (v1.6.6 < v1.7.0); whether the patch number
/// was given only decides how the release is shown (`v1.6` or `v1.6.4`).
#[derive(Clone, Copy, Debug)]
pub struct KubeVirtVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
    /// Shown as `vX.Y.Z` (a patch release was asked for) rather than `vX.Y`.
    show_patch: bool,
}

/// The newest patch release of each v1 minor line, from KubeVirt's release tags
/// (v1.0.1, v1.1.1, v1.2.2, v1.3.1, v1.4.1, v1.5.3, v1.6.6, v1.7.4, v1.8.4, v1.9.0).
const NEWEST_PATCH: [u32; 10] = [1, 1, 2, 1, 1, 3, 6, 4, 4, 0];

/// Why a `--kubevirt-version` (or `kubevirtVersion:`) value names no release kvlint checks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VersionError {
    #[error(
        "`{0}` is not a KubeVirt version such as v1.9, v1.6.4 or v1.6.x (vMAJOR.MINOR[.PATCH|.x])"
    )]
    NotAVersion(String),
    #[error(
        "KubeVirt {0} is not supported: kvlint knows {oldest} to {latest}",
        oldest = KubeVirtVersion::OLDEST,
        latest = KubeVirtVersion::LATEST
    )]
    Unsupported(KubeVirtVersion),
}

impl KubeVirtVersion {
    pub const OLDEST: Self = Self::new(1, 0);
    pub const LATEST: Self = Self::new(1, 9);

    /// The first release of a minor line, `vX.Y.0` (shown as `vX.Y`): what a change that came
    /// with a minor release is compared against.
    pub const fn new(major: u32, minor: u32) -> Self {
        Self {
            major,
            minor,
            patch: 0,
            show_patch: false,
        }
    }

    /// A patch release, shown as `vX.Y.Z`.
    pub const fn release(major: u32, minor: u32, patch: u32) -> Self {
        Self {
            major,
            minor,
            patch,
            show_patch: true,
        }
    }

    /// The newest patch release of the minor line kvlint knows (shown as `vX.Y`).
    pub const fn newest_of(major: u32, minor: u32) -> Self {
        let patch = match newest_patch(major, minor) {
            Some(patch) => patch,
            None => 0,
        };
        Self {
            major,
            minor,
            patch,
            show_patch: false,
        }
    }

    /// Whether this release is `v<major>.<minor>` or newer.
    pub fn at_least(self, major: u32, minor: u32) -> bool {
        self >= Self::new(major, minor)
    }

    /// The `preferredCPUTopology` spellings this release's instance type API defines: the short
    /// names came with v1.4.0 and were not backported (`types.go` at v1.3.1 and v1.2.2),
    /// `preferSpread` and `preferAny` with v1.1.0 (`types.go` and `applyCPU` at v1.0.1 know
    /// neither).
    pub fn topology_names(self) -> TopologyNames {
        if self.at_least(1, 4) {
            TopologyNames::ShortAndPrefer
        } else if self.at_least(1, 1) {
            TopologyNames::PreferOnly
        } else {
            TopologyNames::PreferWithoutSpreadOrAny
        }
    }

    /// Whether this release has a change whose first release in each minor line that got it
    /// is listed in `firsts` (the mainline release last): a minor line with an entry has it
    /// from that patch release on; any other has it when it is newer than the last entry.
    pub fn has_change(self, firsts: &[KubeVirtVersion]) -> bool {
        match firsts
            .iter()
            .find(|first| (first.major, first.minor) == (self.major, self.minor))
        {
            Some(first) => self.patch >= first.patch,
            None => firsts.last().is_some_and(|mainline| self >= *mainline),
        }
    }

    /// Parses `vX.Y` or `vX.Y.Z` (the `v` is optional). A patch release newer than the newest
    /// kvlint knows of its minor line is taken as that newest one, with a note saying so.
    pub fn parse_release(text: &str) -> Result<(Self, Option<String>), VersionError> {
        let not_a_version = || VersionError::NotAVersion(text.to_owned());
        let trimmed = text.trim();
        let digits = trimmed.strip_prefix(['v', 'V']).unwrap_or(trimmed);
        let numbers: Vec<&str> = digits.split('.').collect();
        if !(2..=3).contains(&numbers.len()) {
            return Err(not_a_version());
        }
        let mut parsed = numbers.iter().map(|part| parse_number(part));
        let (Some(Some(major)), Some(Some(minor))) = (parsed.next(), parsed.next()) else {
            return Err(not_a_version());
        };
        // `x` names the newest patch release of the line that kvlint knows.
        let newest = numbers
            .get(2)
            .is_some_and(|part| part.eq_ignore_ascii_case("x"));
        let patch = match parsed.next() {
            None => None,
            Some(Some(patch)) => Some(patch),
            Some(None) if newest => None,
            Some(None) => return Err(not_a_version()),
        };
        let line = Self::newest_of(major, minor);
        if newest_patch(major, minor).is_none() {
            return Err(VersionError::Unsupported(line));
        }
        if newest {
            return Ok((Self::release(major, minor, line.patch), None));
        }
        // `vX.Y` is the minor line's first release: the one the conformance sets were
        // produced at, and the one `--kubevirt-version v1.6` has always meant.
        let Some(patch) = patch else {
            return Ok((Self::new(major, minor), None));
        };
        if patch > line.patch {
            let known = Self::release(major, minor, line.patch);
            let note = format!(
                "KubeVirt v{major}.{minor}.{patch} is newer than the releases kvlint knows: it is checked as {known}, the newest patch release of v{major}.{minor} it knows"
            );
            return Ok((known, Some(note)));
        }
        Ok((Self::release(major, minor, patch), None))
    }
}

/// The newest known patch release of a minor line, if kvlint knows the line.
const fn newest_patch(major: u32, minor: u32) -> Option<u32> {
    if major != 1 || minor as usize >= NEWEST_PATCH.len() {
        return None;
    }
    Some(NEWEST_PATCH[minor as usize])
}

/// A decimal number without sign, as release tags write it.
fn parse_number(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

impl PartialEq for KubeVirtVersion {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for KubeVirtVersion {}

impl PartialOrd for KubeVirtVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for KubeVirtVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.major, self.minor, self.patch).cmp(&(other.major, other.minor, other.patch))
    }
}

impl Hash for KubeVirtVersion {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.major, self.minor, self.patch).hash(state);
    }
}

impl fmt::Display for KubeVirtVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.show_patch {
            write!(f, "v{}.{}.{}", self.major, self.minor, self.patch)
        } else {
            write!(f, "v{}.{}", self.major, self.minor)
        }
    }
}

impl FromStr for KubeVirtVersion {
    type Err = VersionError;

    /// [`KubeVirtVersion::parse_release`] without its note.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse_release(text).map(|(version, _)| version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<(String, u32, Option<String>), VersionError> {
        KubeVirtVersion::parse_release(text).map(|(v, note)| (v.to_string(), v.patch, note))
    }

    #[test]
    fn minor_lines_mean_their_first_release() {
        assert_eq!(parse("v1.9"), Ok(("v1.9".to_owned(), 0, None)));
        assert_eq!(parse("v1.6"), Ok(("v1.6".to_owned(), 0, None)));
        assert_eq!(parse("1.7"), Ok(("v1.7".to_owned(), 0, None)));
        assert_eq!(parse("v1.0"), Ok(("v1.0".to_owned(), 0, None)));
        assert_eq!(
            KubeVirtVersion::newest_of(1, 6),
            KubeVirtVersion::release(1, 6, 6)
        );
        assert_eq!(KubeVirtVersion::LATEST.to_string(), "v1.9");
        assert_eq!(KubeVirtVersion::OLDEST.to_string(), "v1.0");
    }

    #[test]
    fn patch_releases_are_kept_and_shown() {
        assert_eq!(parse("v1.6.4"), Ok(("v1.6.4".to_owned(), 4, None)));
        assert_eq!(parse("1.6.2"), Ok(("v1.6.2".to_owned(), 2, None)));
        assert_eq!(parse(" V1.7.0 "), Ok(("v1.7.0".to_owned(), 0, None)));
    }

    #[test]
    fn x_names_the_newest_known_patch_release() {
        assert_eq!(parse("v1.6.x"), Ok(("v1.6.6".to_owned(), 6, None)));
        assert_eq!(parse("1.7.X"), parse("v1.7.4"));
        assert!(parse("v1.x").is_err());
        assert!(parse("v1.6.x.1").is_err());
        assert!(parse("v1.6.xx").is_err());
        assert_eq!(
            parse("v2.0.x"),
            Err(VersionError::Unsupported(KubeVirtVersion::newest_of(2, 0)))
        );
        assert_eq!(
            parse("v1.6.xx").unwrap_err().to_string(),
            "`v1.6.xx` is not a KubeVirt version such as v1.9, v1.6.4 or v1.6.x (vMAJOR.MINOR[.PATCH|.x])"
        );
    }

    #[test]
    fn unknown_newer_patch_releases_are_the_newest_known_with_a_note() {
        let (shown, patch, note) = parse("v1.6.9").unwrap();
        assert_eq!((shown.as_str(), patch), ("v1.6.6", 6));
        assert!(note.unwrap().contains("checked as v1.6.6"));
        let (shown, _, note) = parse("v1.9.3").unwrap();
        assert_eq!(shown, "v1.9.0");
        assert!(note.is_some());
    }

    #[test]
    fn refuses_what_is_not_a_release() {
        for (text, line) in [("v2.0", (2, 0)), ("v1.10", (1, 10))] {
            assert_eq!(
                parse(text),
                Err(VersionError::Unsupported(KubeVirtVersion::newest_of(
                    line.0, line.1
                ))),
            );
        }
        for text in [
            "latest",
            "v1",
            "v1.6.",
            "v1.6.4.1",
            "v1.6.0-rc.1",
            "v1.-6",
            "v+1.6",
            "",
            "v1.6.99999999999",
        ] {
            assert_eq!(
                parse(text),
                Err(VersionError::NotAVersion(text.to_owned())),
                "{text}"
            );
        }
        assert_eq!(
            parse("v2.0").unwrap_err().to_string(),
            "KubeVirt v2.0 is not supported: kvlint knows v1.0 to v1.9"
        );
    }

    #[test]
    fn orders_releases_by_patch_and_compares_minors_from_their_first_release() {
        let v164 = KubeVirtVersion::release(1, 6, 4);
        assert!(v164.at_least(1, 6) && !v164.at_least(1, 7));
        assert!(KubeVirtVersion::release(1, 6, 6) < KubeVirtVersion::new(1, 7));
        assert_eq!(
            KubeVirtVersion::newest_of(1, 6),
            KubeVirtVersion::release(1, 6, 6)
        );
        assert_ne!(KubeVirtVersion::new(1, 6), KubeVirtVersion::newest_of(1, 6));
    }

    #[test]
    fn backported_changes_follow_each_minor_line() {
        let serial = [
            KubeVirtVersion::release(1, 5, 3),
            KubeVirtVersion::release(1, 6, 1),
            KubeVirtVersion::new(1, 7),
        ];
        let has =
            |major, minor, patch| KubeVirtVersion::release(major, minor, patch).has_change(&serial);
        assert!(!has(1, 4, 1));
        assert!(!has(1, 5, 2) && has(1, 5, 3));
        assert!(!has(1, 6, 0) && has(1, 6, 1) && has(1, 6, 6));
        assert!(has(1, 7, 0) && has(1, 9, 0));
    }
}
