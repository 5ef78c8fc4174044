//! Flux's post-build substitution on any text and variables: never a panic; the same input gives
//! the same answer; every span is a `${…}` of the input (an error's starts at `${`); the
//! outputs of the expressions are ordered pieces of the result; with no expression in the
//! input, the text only loses `$` to `$$` escapes.
#![no_main]

use arbitrary::Arbitrary;
use kvlint::units::envsubst::{Strictness, Variables, substitute};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    text: String,
    variables: Vec<(String, String)>,
    strictness: u8,
}

fuzz_target!(|input: Input| {
    let strictness = match input.strictness % 3 {
        0 => Strictness::Off,
        1 => Strictness::BareOnly,
        _ => Strictness::Full,
    };
    let variables: Variables = input.variables.iter().cloned().collect();
    let text = input.text.as_str();
    let result = substitute(text, &variables, strictness);
    assert_eq!(
        result,
        substitute(text, &variables, strictness),
        "not deterministic"
    );
    match &result {
        Ok(substituted) => {
            let mut input_end = 0;
            let mut output_end = 0;
            for substitution in &substituted.substitutions {
                let span = substitution.span.clone();
                assert!(span.start >= input_end, "{span:?} overlaps");
                let written = text.get(span.clone()).expect("span on char boundaries");
                assert!(
                    written.starts_with("${") && written.ends_with('}'),
                    "{written:?}"
                );
                assert!(substitution.output.start >= output_end);
                assert!(substituted.text.get(substitution.output.clone()).is_some());
                for reference in &substitution.references {
                    assert!(reference.span.start >= span.start && reference.span.end <= span.end);
                }
                input_end = span.end;
                output_end = substitution.output.end;
            }
            if !text.contains("${") && !text.contains('\0') {
                assert_eq!(substituted.text, text.replace("$$", "$"));
            }
        }
        Err(error) => {
            if let Some(span) = error.span() {
                let at = text.get(span.start..).unwrap_or_default();
                assert!(at.starts_with("${"), "{error:?} at {at:?}");
                assert!(span.end <= text.len(), "{error:?}");
            }
        }
    }
});
