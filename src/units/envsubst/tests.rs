//! Table tests built from the grammar of Flux's envsubst (parse.go, scan.go, template.go,
//! funcs.go) and kustomize_varsub.go.

use super::*;

/// The variables of every table: `a` is set, `empty` is set to "", `unset` is not.
fn variables() -> Variables {
    [
        ("a", "Hello.World"),
        ("empty", ""),
        ("path", "/usr/local/bin/tool.tar.gz"),
        ("word", "été"),
        ("num", "3"),
        ("neg", "-3"),
        ("slash", "a/b/c"),
    ]
    .into_iter()
    .collect()
}

enum Expect {
    Text(&'static str),
    /// A syntax error at the `${` at this byte offset.
    Syntax(SyntaxProblem, usize),
    Unset(&'static str),
}
use Expect::{Syntax, Text, Unset};

fn check(strictness: Strictness, cases: &[(&str, Expect)]) {
    let variables = variables();
    for (input, expected) in cases {
        let result = substitute(input, &variables, strictness);
        match (expected, &result) {
            (Text(text), Ok(substituted)) => {
                assert_eq!(substituted.text, *text, "{input:?} ({strictness:?})");
            }
            (Syntax(problem, at), Err(SubstitutionError::Syntax { problem: got, span })) => {
                assert_eq!(
                    (got, span.start),
                    (problem, *at),
                    "{input:?} ({strictness:?})"
                );
            }
            (Unset(name), Err(SubstitutionError::VariableNotSet { name: got, .. })) => {
                assert_eq!(got, name, "{input:?} ({strictness:?})");
            }
            _ => panic!("{input:?} ({strictness:?}) gave {result:?}"),
        }
    }
}

#[test]
fn plain_text_and_dollar_escapes() {
    check(
        Strictness::Full,
        &[
            ("", Text("")),
            ("no expressions", Text("no expressions")),
            ("$a and $unset stay", Text("$a and $unset stay")),
            ("$", Text("$")),
            ("a$", Text("a$")),
            ("$$", Text("$")),
            ("$$$", Text("$$")),
            ("$$$$", Text("$$")),
            ("$${a}", Text("${a}")),
            ("$$${a}", Text("$Hello.World")),
            ("$${unset}", Text("${unset}")),
            ("\\${a}", Text("\\Hello.World")),
            ("\\\\ \\/", Text("\\\\ \\/")),
            ("{a} } {", Text("{a} } {")),
            ("$ {a}", Text("$ {a}")),
            ("été ${word} 日本", Text("été été 日本")),
            // Upstream's scanner reads NUL as the end of the input.
            ("before\0${unset} after", Text("before")),
        ],
    );
}

#[test]
fn bare_references() {
    check(
        Strictness::Full,
        &[
            ("${a}", Text("Hello.World")),
            ("x${a}y${a}", Text("xHello.WorldyHello.World")),
            ("${empty}", Text("")),
            ("${unset}", Unset("unset")),
            ("${_a1}", Unset("_a1")),
            ("${1}", Unset("1")),
            ("${été}", Unset("été")),
        ],
    );
    check(
        Strictness::Off,
        &[("${unset}", Text("")), ("<${unset}>", Text("<>"))],
    );
}

#[test]
fn defaults_apply_when_empty_or_unset() {
    let cases = [
        ("${a:=d}", Text("Hello.World")),
        ("${a=d}", Text("Hello.World")),
        ("${a:-d}", Text("Hello.World")),
        ("${a:?d}", Text("Hello.World")),
        // Upstream maps `:+` to the same function: the value, not the word.
        ("${a:+d}", Text("Hello.World")),
        ("${empty:=d}", Text("d")),
        ("${empty=d}", Text("d")),
        ("${empty:-d}", Text("d")),
        ("${empty:?d}", Text("d")),
        ("${empty:+d}", Text("d")),
        ("${unset:=d}", Text("d")),
        ("${unset=d}", Text("d")),
        ("${unset:-d}", Text("d")),
        ("${unset:?d}", Text("d")),
        ("${unset:+d}", Text("d")),
        ("${unset:-}", Text("")),
        ("${unset=}", Text("")),
        ("${unset:-a b: c}", Text("a b: c")),
        ("${unset==x}", Text("=x")),
        ("${unset:=${a}}", Text("Hello.World")),
        ("${unset:=<${a}>}", Text("<Hello.World>")),
        ("${unset:-${empty:-${a}}}", Text("Hello.World")),
        ("${unset:-$$x}", Text("$$x")),
        ("${unset:-\\/}", Text("\\/")),
        ("${unset:-{x}", Text("{x")),
        // `-` and `+` without a colon are not operators upstream.
        ("${a-d}", Syntax(SyntaxProblem::MissingClosingBrace, 0)),
        ("${a+d}", Syntax(SyntaxProblem::MissingClosingBrace, 0)),
        ("${a?d}", Syntax(SyntaxProblem::MissingClosingBrace, 0)),
        ("${unset:-d", Syntax(SyntaxProblem::FunctionArgument, 0)),
        ("${unset:-${a}x", Syntax(SyntaxProblem::FunctionArgument, 0)),
    ];
    check(Strictness::Full, &cases);
    check(Strictness::BareOnly, &cases);
    check(Strictness::Off, &cases);
}

#[test]
fn arguments_are_evaluated_even_when_unused() {
    check(
        Strictness::Full,
        &[
            ("${a:-${unset}}", Unset("unset")),
            ("${a:-${unset:-x}}", Text("Hello.World")),
        ],
    );
}

#[test]
fn substrings_are_byte_slices() {
    check(
        Strictness::Full,
        &[
            ("${a:6}", Text("World")),
            ("${a:0:5}", Text("Hello")),
            ("${a:6:100}", Text("World")),
            ("${a:100}", Text("")),
            ("${a:100:2}", Text("")),
            ("${a:x}", Text("Hello.World")),
            ("${a:1:x}", Text("Hello.World")),
            // `:-` starts a default; a negative offset needs a space (not a number for Go's
            // Atoi, so the value is kept) or a nested expression.
            ("${a:-3}", Text("Hello.World")),
            ("${a: -3}", Text("Hello.World")),
            ("${a:${neg}}", Text("rld")),
            ("${a:${neg}:2}", Text("rl")),
            ("${a:${num}:${num}}", Text("lo.")),
            ("${a:1::2}", Text("el")),
            ("${empty:1}", Text("")),
            ("${a:}", Syntax(SyntaxProblem::FunctionArgument, 0)),
            ("${a::1}", Syntax(SyntaxProblem::FunctionArgument, 0)),
            ("${a:1:}", Syntax(SyntaxProblem::FunctionArgument, 0)),
            ("${a:1", Syntax(SyntaxProblem::BadSubstitution, 0)),
            ("${a:", Syntax(SyntaxProblem::BadSubstitution, 0)),
            ("${a:1x${a}}", Syntax(SyntaxProblem::BadSubstitution, 0)),
            // Upstream steps back by the width of the character after the colon.
            ("${a:é}", Syntax(SyntaxProblem::BadSubstitution, 0)),
            ("${unset:1}", Unset("unset")),
        ],
    );
    check(Strictness::BareOnly, &[("${unset:1}", Text(""))]);
}

#[test]
fn substrings_that_cut_a_character_or_panic_upstream() {
    let variables = variables();
    let cut = substitute("x: ${word:1}", &variables, Strictness::Full);
    assert_eq!(cut, Err(SubstitutionError::InvalidUtf8 { span: 3..12 }));
    // Two cuts that join back into the character are fine.
    let joined = substitute("${word:0:1}${word:1:1}", &variables, Strictness::Full);
    assert_eq!(joined.map(|s| s.text), Ok("é".to_owned()));
    let panics = substitute("${a:3:-1}", &variables, Strictness::Full);
    assert!(
        matches!(&panics, Err(SubstitutionError::NegativeLength { span, .. }) if *span == (0..9)),
        "{panics:?}"
    );
}

#[test]
fn pattern_removal() {
    check(
        Strictness::Full,
        &[
            ("${path#*/}", Text("usr/local/bin/tool.tar.gz")),
            ("${path##*/}", Text("tool.tar.gz")),
            ("${path%.*}", Text("/usr/local/bin/tool.tar")),
            ("${path%%.*}", Text("/usr/local/bin/tool")),
            ("${path#/usr}", Text("/local/bin/tool.tar.gz")),
            ("${path#nomatch}", Text("/usr/local/bin/tool.tar.gz")),
            ("${a#?}", Text("ello.World")),
            ("${a##[A-Z]*[.]}", Text("World")),
            // `!` is a member of the class, not a negation.
            ("${a#[!H]}", Text("ello.World")),
            ("${a#[^x]}", Text("ello.World")),
            // Suffix patterns are reversed character by character, brackets included, so a
            // class never matches there.
            ("${a%[^x]}", Text("Hello.World")),
            ("${a%d}", Text("Hello.Worl")),
            // A trailing star matches at once, so the shortest match is one byte.
            ("${a#*}", Text("ello.World")),
            ("${a##*}", Text("")),
            ("${a#${num}}", Text("Hello.World")),
            ("${num#${num}}", Text("")),
            ("${a###}", Text("Hello.World")),
            // A malformed pattern leaves the value.
            ("${a#[}", Text("Hello.World")),
            ("${a#}", Syntax(SyntaxProblem::FunctionArgument, 0)),
            ("${a%}", Syntax(SyntaxProblem::FunctionArgument, 0)),
            ("${a#x${a}}", Syntax(SyntaxProblem::BadSubstitution, 0)),
            ("${a#x", Syntax(SyntaxProblem::BadSubstitution, 0)),
            ("${unset#x}", Unset("unset")),
            ("${unset%%x}", Unset("unset")),
        ],
    );
    check(Strictness::Off, &[("${unset#x}", Text(""))]);
}

#[test]
fn replacement() {
    check(
        Strictness::Full,
        &[
            ("${slash/\\//-}", Text("a-b/c")),
            ("${slash//\\//-}", Text("a-b-c")),
            ("${slash/#a/x}", Text("x/b/c")),
            ("${slash/#b/x}", Text("a/b/c")),
            ("${slash/%c/x}", Text("a/b/x")),
            ("${slash/%b/x}", Text("a/b/c")),
            ("${a/o/0}", Text("Hell0.World")),
            ("${a//o/0}", Text("Hell0.W0rld")),
            ("${a//o/}", Text("Hell.Wrld")),
            ("${a/o}", Syntax(SyntaxProblem::BadSubstitution, 0)),
            ("${a//o}", Syntax(SyntaxProblem::BadSubstitution, 0)),
            // The search runs to the next slash, closing braces included.
            ("${a/o} x/y}", Text("Hello.World")),
            ("${a/o} W/y}", Text("Hello.World")),
            // With an empty replacement `/#` and `/%` keep the value (two arguments needed).
            ("${a/#H/}", Text("Hello.World")),
            ("${a/%d/}", Text("Hello.World")),
            ("${a/#H/${empty}}", Text("ello.World")),
            // Several slashes delimit once.
            ("${a/o///0}", Text("Hell0.World")),
            ("${a/./\\\\}", Text("Hello\\World")),
            ("${a/.\\\\/x}", Text("Hello.World")),
            ("${a/.W/$$}", Text("Hello$orld")),
            ("${a/${num}/x}", Text("Hello.World")),
            ("${num/${num}/${a}}", Text("Hello.World")),
            ("${a/*/x}", Text("Hello.World")),
            ("${a///x}", Syntax(SyntaxProblem::FunctionArgument, 0)),
            ("${a/o/x${a}}", Syntax(SyntaxProblem::BadSubstitution, 0)),
            ("${a/o/x", Syntax(SyntaxProblem::BadSubstitution, 0)),
            ("${a/o${a}/x}", Syntax(SyntaxProblem::BadSubstitution, 0)),
            ("${unset/x/y}", Unset("unset")),
            ("${unset//x/y}", Unset("unset")),
        ],
    );
    check(
        Strictness::Off,
        &[
            ("${unset/x/y}", Text("")),
            ("${a//${unset}/-}", Text("-H-e-l-l-o-.-W-o-r-l-d-")),
        ],
    );
}

#[test]
fn case_and_length() {
    check(
        Strictness::Full,
        &[
            ("${a^^}", Text("HELLO.WORLD")),
            ("${a,,}", Text("hello.world")),
            ("${a,}", Text("hello.World")),
            ("${word^}", Text("Été")),
            ("${word^^}", Text("ÉTÉ")),
            ("${a^,}", Text("Hello.World")),
            ("${a,^}", Text("Hello.World")),
            ("${a^^^}", Syntax(SyntaxProblem::BadSubstitution, 0)),
            ("${a^x}", Syntax(SyntaxProblem::BadSubstitution, 0)),
            ("${#a}", Text("11")),
            ("${#word}", Text("5")),
            ("${#empty}", Text("0")),
            ("${#}", Syntax(SyntaxProblem::BadSubstitution, 0)),
            ("${##a}", Syntax(SyntaxProblem::BadSubstitution, 0)),
            ("${#a:1}", Syntax(SyntaxProblem::BadSubstitution, 0)),
            ("${#a", Syntax(SyntaxProblem::BadSubstitution, 0)),
            ("${#unset}", Unset("unset")),
            ("${unset^^}", Unset("unset")),
            ("${unset,}", Unset("unset")),
        ],
    );
    check(
        Strictness::BareOnly,
        &[
            ("${#unset}", Text("0")),
            ("${unset^^}", Text("")),
            ("${unset}", Unset("unset")),
        ],
    );
}

#[test]
fn malformed_expressions() {
    check(
        Strictness::Off,
        &[
            ("${", Syntax(SyntaxProblem::VariableName, 0)),
            ("${}", Syntax(SyntaxProblem::VariableName, 0)),
            ("${ a }", Syntax(SyntaxProblem::VariableName, 0)),
            ("${-a}", Syntax(SyntaxProblem::VariableName, 0)),
            ("${a", Syntax(SyntaxProblem::MissingClosingBrace, 0)),
            ("${a b}", Syntax(SyntaxProblem::MissingClosingBrace, 0)),
            ("${a.b}", Syntax(SyntaxProblem::MissingClosingBrace, 0)),
            (
                "ok ${a} then ${a",
                Syntax(SyntaxProblem::MissingClosingBrace, 13),
            ),
            ("${a:-${b", Syntax(SyntaxProblem::MissingClosingBrace, 5)),
            ("${a:-${", Syntax(SyntaxProblem::VariableName, 5)),
            ("${a\0}", Syntax(SyntaxProblem::MissingClosingBrace, 0)),
        ],
    );
}

#[test]
fn syntax_errors_win_over_earlier_evaluation_errors() {
    let variables = variables();
    let result = substitute("${unset} ${a", &variables, Strictness::Full);
    assert_eq!(
        result,
        Err(SubstitutionError::Syntax {
            problem: SyntaxProblem::MissingClosingBrace,
            span: 9..12
        })
    );
    let first = substitute("${unset} ${unset2}", &variables, Strictness::Full);
    assert_eq!(
        first,
        Err(SubstitutionError::VariableNotSet {
            name: "unset".into(),
            span: 0..8
        })
    );
}

#[test]
fn spans_and_references_point_into_the_input() {
    let variables = variables();
    let input = "é: ${a} and ${unset:-${num}}!";
    let substituted = substitute(input, &variables, Strictness::Full).expect("substitutes");
    assert_eq!(substituted.text, "é: Hello.World and 3!");
    let [first, second] = substituted.substitutions.as_slice() else {
        panic!("{:?}", substituted.substitutions);
    };
    assert_eq!(&input[first.span.clone()], "${a}");
    assert_eq!(&substituted.text[first.output.clone()], "Hello.World");
    assert_eq!(&input[second.span.clone()], "${unset:-${num}}");
    assert_eq!(&substituted.text[second.output.clone()], "3");
    let names: Vec<(&str, &str, bool)> = second
        .references
        .iter()
        .map(|reference| {
            (
                reference.name.as_str(),
                &input[reference.span.clone()],
                reference.set,
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("num", "${num}", true),
            ("unset", "${unset:-${num}}", false)
        ]
    );
}

#[test]
fn variables_follow_flux_loading_rules() {
    let mut variables = Variables::new();
    variables.set("region", "eu-\nwest\n");
    variables.set("size", "small");
    variables.extend([("size", "large")]);
    assert_eq!(variables.get("region"), Some("eu-west"));
    assert_eq!(variables.get("size"), Some("large"));
    assert_eq!(
        variables.iter().map(|(name, _)| name).collect::<Vec<_>>(),
        ["region", "size"]
    );
    assert_eq!(variables.invalid_name(), None);

    for invalid in ["1a", "a-b", "a.b", "", "é", "a b"] {
        let variables: Variables = [("ok", "1"), (invalid, "x")].into_iter().collect();
        let error = substitute("text", &variables, Strictness::Off).expect_err(invalid);
        assert_eq!(
            error.to_string(),
            format!(
                "'{invalid}' var name is invalid, must match '^[_[:alpha:]][_[:alpha:][:digit:]]*$'"
            )
        );
    }
    for valid in ["_", "a", "A_1", "_9"] {
        let variables: Variables = [(valid, "x")].into_iter().collect();
        assert_eq!(variables.invalid_name(), None, "{valid}");
    }
}

#[test]
fn when_substitution_runs() {
    let none = Variables::new();
    let some: Variables = [("a", "1")].into_iter().collect();
    assert!(!runs(Strategy::WithVariables, &none, None, None));
    assert!(runs(Strategy::Always, &none, None, None));
    assert!(runs(Strategy::WithVariables, &some, None, None));
    assert!(!runs(Strategy::Always, &some, Some("disabled"), None));
    assert!(!runs(Strategy::Always, &some, None, Some("disabled")));
    assert!(runs(
        Strategy::Always,
        &some,
        Some("Disabled"),
        Some("false")
    ));
    assert_eq!(Strategy::from_field(Some("Always")), Strategy::Always);
    assert_eq!(
        Strategy::from_field(Some("always")),
        Strategy::WithVariables
    );
    assert_eq!(Strategy::from_field(None), Strategy::WithVariables);
}

#[test]
fn messages_are_fluxs() {
    let variables = variables();
    let message = |input: &str| {
        substitute(input, &variables, Strictness::Full)
            .expect_err(input)
            .controller_message()
    };
    assert_eq!(
        message("${unset}").as_deref(),
        Some(
            "envsubst error: variable substitution failed: variable not set (strict mode): \"unset\""
        )
    );
    assert_eq!(
        message("${a").as_deref(),
        Some("envsubst error: variable substitution failed: missing closing brace")
    );
    assert_eq!(message("${word:1}"), None);
}

#[test]
fn long_input_is_linear() {
    let variables = variables();
    let line = "key: ${a} $${literal} ${unset:-fallback} ${path##*/} text é\n";
    let read = |input: &str| {
        let before = parse::READ.with(std::cell::Cell::get);
        let substituted = substitute(input, &variables, Strictness::Full).expect("substitutes");
        (substituted, parse::READ.with(std::cell::Cell::get) - before)
    };
    let half = line.repeat((1 << 19) / line.len());
    let (_, read_half) = read(&half);
    let input = half.repeat(2);
    let (substituted, read_all) = read(&input);
    // Twice the text is read twice over, not four times; each byte about once.
    assert!(read_all <= 2 * read_half, "{read_all} then {read_half}");
    assert!(read_all <= 2 * input.len() as u64, "{read_all} read");
    assert_eq!(
        substituted.substitutions.len(),
        3 * (input.len() / line.len())
    );
    assert!(
        substituted
            .text
            .starts_with("key: Hello.World ${literal} fallback tool.tar.gz text é\n")
    );
}

#[test]
fn deep_nesting_uses_no_call_stack() {
    let variables = variables();
    let depth = 200_000;
    let open = "${unset:-".repeat(depth);
    let closed = format!("{open}x{}", "}".repeat(depth));
    let substituted = substitute(&closed, &variables, Strictness::Full).expect("substitutes");
    assert_eq!(substituted.text, "x");
    assert_eq!(substituted.substitutions[0].references.len(), depth);
    let unclosed = substitute(&open, &variables, Strictness::Full);
    assert!(
        matches!(
            unclosed,
            Err(SubstitutionError::Syntax {
                problem: SyntaxProblem::FunctionArgument,
                ..
            })
        ),
        "{unclosed:?}"
    );
    let braces = "${".repeat(depth);
    assert!(substitute(&braces, &variables, Strictness::Full).is_err());
}

#[test]
fn growth_and_matching_are_bounded() {
    let big = "x".repeat(1 << 20);
    let variables: Variables = [("big", big.as_str()), ("e", "")].into_iter().collect();
    let growth = substitute("${big//${e}/${big}}", &variables, Strictness::Full);
    assert_eq!(
        growth,
        Err(SubstitutionError::OutputTooLarge { span: 0..19 })
    );
    let repeated = "${big}".repeat(100);
    let many = substitute(&repeated, &variables, Strictness::Full);
    assert!(
        matches!(many, Err(SubstitutionError::OutputTooLarge { .. })),
        "{many:?}"
    );
    let before = glob::ELEMENTS_TRIED.with(std::cell::Cell::get);
    let matching = substitute("${big#*y*y}", &variables, Strictness::Full);
    let tried = glob::ELEMENTS_TRIED.with(std::cell::Cell::get) - before;
    assert_eq!(
        matching,
        Err(SubstitutionError::PatternTooExpensive { span: 0..11 })
    );
    // The budget pays for every element tried, so it bounds the work (each of the 2^20 prefixes
    // tried at each of its places is 5 * 10^11).
    assert!(tried <= MAX_MATCH_STEPS, "{tried} tried");
}
