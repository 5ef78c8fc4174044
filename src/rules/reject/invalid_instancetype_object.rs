//! KV1012: an instance type, preference or ControllerRevision cannot be decoded as KubeVirt's
//! types (found by `admission::objects`, which decodes them as KubeVirt does).

use std::fmt::Display;

use super::spec::{At, Reported};
use crate::rules::{Category, FixKind, Rule, Severity};

pub static INVALID_SPEC_OBJECT: Rule = Rule {
    code: "KV1012",
    name: "invalid-instancetype-object",
    category: Category::Schema,
    severity: Severity::Error,
    summary: "An instance type, preference or ControllerRevision cannot be decoded as KubeVirt's types.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV1012.md"),
    fix: FixKind::None,
    drift: None,
};

/// The object's spec does not decode: `error`, the decoder's words.
pub fn undecodable(error: &dyn Display) -> Reported {
    Reported::new(
        &INVALID_SPEC_OBJECT,
        At::Field("spec".to_owned()),
        error.to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_at_the_spec_with_the_decoder_s_words() {
        let reported = undecodable(&"cpu.guest: invalid type: string \"two\", expected u32");
        assert_eq!(reported.at, At::Field("spec".to_owned()));
        assert_eq!(
            reported.message,
            "cpu.guest: invalid type: string \"two\", expected u32"
        );
        assert_eq!(reported.help, None);
    }
}
