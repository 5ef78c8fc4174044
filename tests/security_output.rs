//! Report output is safe to print in a CI log, a terminal and a pull-request comment, whatever
//! the manifests hold (docs/security.md, items 6, 10 and 11 of the hostile-input review).
//!
//! Hostile text is generated into names, namespaces, labels, annotations, keys, comments and
//! file names, and every format of `check`, `render` and `diff` is asserted to print no line a
//! GitHub runner would execute, no raw control character, and (Markdown) no live mention,
//! image or link taken from the manifests.

use std::path::Path;
use std::process::Command;

/// What a GitHub runner would execute, terminal control, and Markdown that notifies or links.
const PAYLOAD: &str = "web\n::error file=README.md,line=1::FAKE\n  ::add-mask::x\r::warning::w \
     ##[group]g %0A::notice::n @org/team @octocat ![x](https://evil.example/i.png) \
     [link](http://x.example) ``a`b` \u{1b}]0;title\u{7} \u{1b}[2J \u{9b}31m \u{7f} \u{202e}";

/// `text` as a YAML double-quoted scalar.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

fn hostile_vm(name: &str) -> String {
    let q = |suffix: &str| quoted(&format!("{PAYLOAD}{suffix}"));
    format!(
        "# comment \u{1b}]0;pwned\u{7} \u{1b}[2J\n\
         apiVersion: kubevirt.io/v1\n\
         kind: VirtualMachine\n\
         metadata:\n  \
           name: {name}\n  \
           namespace: {ns}\n  \
           labels:\n    \
             {label_key}: {label}\n    \
             {label_key}: twice\n  \
           annotations:\n    \
             note: {annotation}\n\
         spec:\n  \
           running: true # \u{1b}]0;pwned\u{7}\u{1b}[2J\n  \
           {unknown}: 1\n  \
           instancetype:\n    \
             name: {it}\n  \
           preference:\n    \
             name: {pref}\n  \
           template:\n    \
             metadata:\n      \
               annotations:\n        \
                 userdata: {block}\n    \
             spec:\n      \
               domain:\n        \
                 devices: {{}}\n        \
                 memory:\n          \
                   guest: 1Gi # \u{7}\u{1b}[31m\n",
        name = quoted(name),
        ns = q("-ns"),
        label_key = q("-key"),
        label = q("-label"),
        annotation = q("-annotation"),
        unknown = q("-field"),
        it = q("-it"),
        pref = q("-pref"),
        block = quoted("#cloud-config\n::error::in a block\n  ##[group]x\n"),
    )
}

/// A VM that renders, hostile wherever a rendered VM carries text.
fn rendering_vm(memory: &str) -> String {
    format!(
        "apiVersion: kubevirt.io/v1\n\
         kind: VirtualMachine\n\
         metadata:\n  \
           name: {name}\n  \
           labels:\n    \
             {key}: {value}\n\
         spec:\n  \
           runStrategy: Halted\n  \
           template:\n    \
             metadata:\n      \
               annotations:\n        \
                 userdata: {block}\n    \
             spec:\n      \
               domain:\n        \
                 devices: {{}}\n        \
                 memory:\n          \
                   guest: {memory} # \u{1b}[2J\n",
        name = quoted(&format!("{PAYLOAD}-plain")),
        key = quoted(&format!("{PAYLOAD}-key")),
        value = quoted(&format!("{PAYLOAD}-value")),
        block = quoted("#cloud-config\n::error::in a block\n  ##[group]x\n"),
    )
}

/// A repository of both VMs; `memory` differs between the sides of `diff`.
fn write_repo(dir: &Path, memory: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("vm.yaml"), hostile_vm(PAYLOAD)).unwrap();
    // A file name a runner would read as a command.
    let name = "x\n::error::file ##[group] \u{1b}[2J.yaml";
    std::fs::write(dir.join(name), rendering_vm(memory)).unwrap();
}

fn run(dir: &Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_STEP_SUMMARY")
        .env("NO_COLOR", "1")
        .output()
        .expect("kvlint runs");
    let code = output.status.code();
    assert!(
        matches!(code, Some(0 | 1)),
        "{args:?} exited {code:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

fn is_line_break(ch: char) -> bool {
    matches!(ch, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// Lines a GitHub runner would execute, and raw control characters.
fn problems(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.split(is_line_break) {
        let trimmed = line.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        if trimmed.starts_with("::") {
            found.push(format!("command: {line:?}"));
        }
        if line.contains("##[") {
            found.push(format!("legacy command: {line:?}"));
        }
    }
    for ch in text.chars() {
        let hidden =
            ch.is_control() || matches!(ch, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if hidden && ch != '\n' && ch != '\t' {
            found.push(format!("control character {ch:?}"));
        }
    }
    found.dedup();
    found
}

fn assert_safe(what: &str, text: &str) {
    assert!(!text.trim().is_empty(), "{what}: no output");
    let found = problems(text);
    assert!(
        found.is_empty(),
        "{what}:\n{}\n--- output ---\n{text}",
        found.join("\n")
    );
}

/// `markdown` without its code: fenced blocks, `<code>` elements and code spans (a backtick
/// run closed by the next run of the same length, as CommonMark pairs them), where nothing is
/// live.
fn outside_code(markdown: &str) -> String {
    let mut prose = String::new();
    let mut fence: Option<String> = None;
    for line in markdown.lines() {
        let ticks: String = line.chars().take_while(|&c| c == '`').collect();
        match &fence {
            Some(open) if ticks.len() >= open.len() && line.trim_end() == ticks => fence = None,
            Some(_) => {}
            None if ticks.len() >= 3 => fence = Some(ticks),
            None => {
                prose.push_str(line);
                prose.push('\n');
            }
        }
    }
    let mut out = String::new();
    let mut rest = prose.as_str();
    while let Some(start) = rest.find(['`', '<']) {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        if let Some(inner) = tail.strip_prefix("<code>") {
            rest = inner.find("</code>").map_or("", |end| &inner[end + 7..]);
            continue;
        }
        if !tail.starts_with('`') {
            out.push('<');
            rest = &tail[1..];
            continue;
        }
        let run = tail.chars().take_while(|&c| c == '`').count();
        let body = &tail[run..];
        let mut scan = 0;
        let mut close = None;
        while let Some(at) = body[scan..].find('`') {
            let at = scan + at;
            let len = body[at..].chars().take_while(|&c| c == '`').count();
            if len == run {
                close = Some(at + len);
                break;
            }
            scan = at + len;
        }
        if let Some(end) = close {
            rest = &body[end..];
        } else {
            out.push_str(&tail[..run]);
            rest = body;
        }
    }
    out.push_str(rest);
    out
}

/// Markdown that would notify, load an image or link somewhere taken from the manifests.
fn assert_inert_markdown(what: &str, text: &str) {
    let prose = outside_code(text);
    for live in [
        "@octocat",
        "@org/team",
        "https://evil",
        "http://x.example",
        "](https://evil",
        "](http://x",
    ] {
        assert!(!prose.contains(live), "{what}: {live:?} is live\n{prose}");
    }
}

fn check(dir: &Path, format: &str) -> String {
    run(
        dir,
        &[
            "check",
            "--color",
            "never",
            "--no-config",
            "--format",
            format,
            ".",
        ],
    )
}

#[test]
fn check_formats_print_no_command_and_no_control_character() {
    let dir = tempfile::tempdir().unwrap();
    write_repo(dir.path(), "1Gi");
    for format in ["human", "concise", "markdown", "junit", "sarif", "json"] {
        let text = check(dir.path(), format);
        assert_safe(format, &text);
    }
    let markdown = check(dir.path(), "markdown");
    assert_inert_markdown("markdown", &markdown);
    // The findings still name what they are about.
    let human = check(dir.path(), "human");
    assert!(human.contains("\\u{1b}]0;pwned\\u{7}"), "{human}");
    assert!(human.contains("KV0016"), "{human}");
}

#[test]
fn github_annotations_are_one_line_each_and_nothing_else_is_a_command() {
    let dir = tempfile::tempdir().unwrap();
    write_repo(dir.path(), "1Gi");
    let text = check(dir.path(), "github");
    assert!(!text.is_empty());
    for line in text.split(is_line_break).filter(|l| !l.is_empty()) {
        assert!(
            ["::error ", "::warning ", "::notice "]
                .iter()
                .any(|start| line.starts_with(start)),
            "{line:?}\n{text}"
        );
        // The properties end at the first `::` after the command; the data holds no break.
        assert!(!line.contains("##["), "{line:?}");
        assert!(!line.contains(|c: char| c.is_control()), "{line:?}");
    }
    // A `%0A` from a manifest stays text: its `%` is escaped.
    assert!(text.contains("%250A"), "{text}");
    assert!(!text.contains(" %0A::notice"), "{text}");
}

#[test]
fn github_step_summary_is_inert_markdown() {
    let dir = tempfile::tempdir().unwrap();
    write_repo(dir.path(), "1Gi");
    let summary = dir.path().join("summary.md");
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(["check", "--no-config", "--format", "github", "."])
        .current_dir(dir.path())
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert!(output.status.code() == Some(1), "{output:?}");
    let text = std::fs::read_to_string(&summary).unwrap();
    assert_safe("step summary", &text);
    assert_inert_markdown("step summary", &text);
}

#[test]
fn render_prints_no_command_and_no_control_character() {
    let dir = tempfile::tempdir().unwrap();
    write_repo(dir.path(), "1Gi");
    for format in ["yaml", "json"] {
        let text = run(
            dir.path(),
            &["render", "--no-config", "--format", format, "."],
        );
        assert_safe(format, &text);
    }
    // The values read back unchanged.
    let json = run(
        dir.path(),
        &["render", "--no-config", "--format", "json", "."],
    );
    let vms: serde_json::Value = serde_json::from_str(&json).unwrap();
    let names: Vec<&str> = vms
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|vm| vm.pointer("/metadata/name").and_then(|n| n.as_str()))
        .collect();
    assert!(
        names.contains(&format!("{PAYLOAD}-plain").as_str()),
        "{names:?}"
    );
}

#[test]
fn diff_formats_print_no_command_and_no_control_character() {
    let dir = tempfile::tempdir().unwrap();
    write_repo(&dir.path().join("base"), "1Gi");
    write_repo(&dir.path().join("head"), "2Gi");
    for format in ["text", "markdown", "json"] {
        let text = run(
            dir.path(),
            &["diff", "--no-config", "--format", format, "base", "head"],
        );
        assert_safe(format, &text);
        if format == "markdown" {
            assert_inert_markdown(format, &text);
        }
    }
}
