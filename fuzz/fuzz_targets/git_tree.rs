//! `kvlint diff --base`'s reading of a git tree: `git ls-tree -z -l` records and the paths they
//! name, on arbitrary bytes (a crafted tree can hold any name). Never panics; every path kept
//! stays below the top level, out of `.git`, and every file picked is named below the path
//! given.

#![no_main]

use std::path::{Component, Path};

use kvlint::commands::diff::revision::listing::{self, RepoPath};
use kvlint::commands::diff::revision::select::{Globs, pick};
use libfuzzer_sys::fuzz_target;

fn assert_inside(path: &Path) {
    for component in path.components() {
        let Component::Normal(part) = component else {
            panic!("{path:?} is not a plain relative path");
        };
        assert!(
            !part.as_encoded_bytes().eq_ignore_ascii_case(b".git"),
            "{path:?} enters .git"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    if let Some(path) = RepoPath::from_git(data) {
        assert!(!path.is_top());
        assert_inside(path.as_path());
    }
    if let Ok(text) = std::str::from_utf8(data)
        && let Some(path) = listing::normalise(Path::new(text))
    {
        assert_inside(path.as_path());
    }
    let Ok(entries) = listing::parse(data) else {
        return;
    };
    for entry in &entries {
        assert_inside(entry.path.as_path());
    }
    let globs = Globs::default();
    for (given, at) in [(".", RepoPath::top()), ("apps", RepoPath::from_git(b"apps").unwrap())] {
        let found = pick(Path::new(given), &at, &entries, &globs);
        for file in &found.files {
            let named = Path::new(&*file.display);
            assert_inside(named);
            if given != "." {
                assert!(named.starts_with(given), "{named:?} is not below {given}");
            }
        }
    }
});
