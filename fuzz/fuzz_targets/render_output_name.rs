//! The file names `render --out-dir` builds from a VM's namespace and name, which come from the
//! manifest: from any bytes, a name is either refused or one plain component of the output
//! directory (no separator, NUL, control character, `.` or `..`); the same input gives the same
//! answer; two different namespace/name pairs never share a file name.
#![no_main]

use std::path::{Component, Path};

use arbitrary::Arbitrary;
use kvlint::source::write::{OutputPath, vm_file_name};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    first: (Vec<u8>, Vec<u8>),
    second: (Vec<u8>, Vec<u8>),
    json: bool,
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn checked(namespace: &str, name: &str, extension: &str) -> Option<String> {
    let result = vm_file_name(namespace, name, extension);
    assert_eq!(
        result,
        vm_file_name(namespace, name, extension),
        "not deterministic"
    );
    let file_name = result.ok()?;
    let written = file_name.as_str().to_owned();
    assert!(
        !written.contains(['/', '\\', '\0']) && !written.chars().any(char::is_control),
        "{written:?}"
    );
    let dir = Path::new("out");
    let path = OutputPath::in_dir(dir, file_name).path();
    let components: Vec<Component<'_>> = path.components().collect();
    assert_eq!(components.len(), 2, "{path:?} is not a child of {dir:?}");
    assert!(matches!(components[1], Component::Normal(_)), "{path:?}");
    assert_eq!(path.parent(), Some(dir), "{path:?}");
    Some(written)
}

fuzz_target!(|input: Input| {
    let extension = if input.json { "json" } else { "yaml" };
    let first = (text(&input.first.0), text(&input.first.1));
    let second = (text(&input.second.0), text(&input.second.1));
    let a = checked(&first.0, &first.1, extension);
    let b = checked(&second.0, &second.1, extension);
    if let (Some(a), Some(b)) = (a, b) {
        assert!(
            a != b || first == second,
            "{first:?} and {second:?} both write {a:?}"
        );
    }
});
