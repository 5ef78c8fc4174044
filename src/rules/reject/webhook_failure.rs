//! KV1009: KubeVirt's own webhook code fails (panics) on this combination (found by
//! `admission` and `render`, which reproduce where KubeVirt's code panics).

use super::spec::{At, Reported};
use crate::rules::{Category, FixKind, Rule, Severity};

pub static WEBHOOK_FAILURE: Rule = Rule {
    code: "KV1009",
    name: "webhook-failure",
    category: Category::Reject,
    severity: Severity::Error,
    summary: "KubeVirt's own webhook code fails (panics) on this combination; the request is refused.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV1009.md"),
    fix: FixKind::None,
    drift: None,
};

/// The webhook fails with `message` (what KubeVirt's panic says).
pub fn panicked(message: String) -> Reported {
    Reported::new(&WEBHOOK_FAILURE, At::Field("spec".to_owned()), message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_at_the_spec_with_the_panic_s_words() {
        let reported = panicked("runtime error: integer divide by zero".to_owned());
        assert_eq!(reported.at, At::Field("spec".to_owned()));
        assert_eq!(reported.message, "runtime error: integer divide by zero");
        assert_eq!(reported.help, None);
    }
}
