//! The size rule: no file in `src/` is longer than [`MAX_FILE_LINES`] lines, tests included, and
//! no function is longer than [`MAX_FUNCTION_LINES`] lines, from its `fn` to its closing brace.
//! A long file is split along its domain into a folder of files; a long function into named
//! steps. The exceptions are listed below, each with its reason; an exception that no longer
//! applies fails the test too, so the list only shrinks.

use std::path::{Path, PathBuf};

use super::{Token, tokenize};

const MAX_FILE_LINES: usize = 800;
const MAX_FUNCTION_LINES: usize = 120;

/// Files that may be longer than `MAX_FILE_LINES`, each with its reason.
const LONG_FILES: &[(&str, &str)] = &[(
    "src/schema/types.rs",
    "mirrored type declarations: KubeVirt's instancetype and preference Go types, field for \
     field, kept as one declaration file as KubeVirt keeps them",
)];

/// Functions (file and name) that may be longer than `MAX_FUNCTION_LINES`, each with its
/// reason. None may: a long function is split into named steps.
const LONG_FUNCTIONS: &[(&str, &str, &str)] = &[];

/// A function of a file: its name, the line of its `fn` and its length in lines.
#[derive(Debug, PartialEq)]
struct Function {
    name: String,
    line: usize,
    lines: usize,
}

/// Every function with a body in `source`, nested ones included.
fn functions(source: &str) -> Vec<Function> {
    let tokens = tokenize(source);
    let mut found = Vec::new();
    for (i, (token, line)) in tokens.iter().enumerate() {
        let (Token::Ident(keyword), Some((Token::Ident(name), _))) = (token, tokens.get(i + 1))
        else {
            continue;
        };
        if keyword != "fn" {
            continue;
        }
        if let Some(end_line) = body_end(&tokens, i + 2) {
            found.push(Function {
                name: name.clone(),
                line: *line,
                lines: end_line + 1 - line,
            });
        }
    }
    found
}

/// The line of the brace that closes the body of the function whose signature goes on at
/// `from`; `None` for a declaration without a body.
fn body_end(tokens: &[(Token, usize)], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut body = false;
    for (token, line) in &tokens[from..] {
        match token {
            Token::Punct(';') if depth == 0 => return None,
            Token::Punct('{') if depth == 0 && !body => {
                body = true;
                depth = 1;
            }
            Token::Punct('(' | '[' | '{') => depth += 1,
            Token::Punct(')' | ']' | '}') => {
                depth = depth.saturating_sub(1);
                if body && depth == 0 {
                    return Some(*line);
                }
            }
            _ => {}
        }
    }
    None
}

fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{} is unreadable: {e}", dir.display()))
        .map(|entry| entry.expect("a readable entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// Every Rust file of `src/`, by its path from the crate (`src/yaml/build/mod.rs`), with its text.
fn sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files
        .into_iter()
        .map(|path| {
            let shown = path
                .strip_prefix(root)
                .expect("under the crate")
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{shown} is unreadable: {e}"));
            (shown, text)
        })
        .collect()
}

/// The limits and their exceptions a tree is judged by.
struct Limits<'a> {
    file_lines: usize,
    function_lines: usize,
    long_files: &'a [&'a str],
    long_functions: &'a [(&'a str, &'a str)],
}

/// The project's limits and exceptions.
fn project_limits() -> Limits<'static> {
    static LONG_FILE_PATHS: std::sync::LazyLock<Vec<&str>> =
        std::sync::LazyLock::new(|| LONG_FILES.iter().map(|(file, _)| *file).collect());
    static LONG_FUNCTION_NAMES: std::sync::LazyLock<Vec<(&str, &str)>> =
        std::sync::LazyLock::new(|| {
            LONG_FUNCTIONS
                .iter()
                .map(|(file, name, _)| (*file, *name))
                .collect()
        });
    Limits {
        file_lines: MAX_FILE_LINES,
        function_lines: MAX_FUNCTION_LINES,
        long_files: &LONG_FILE_PATHS,
        long_functions: &LONG_FUNCTION_NAMES,
    }
}

/// Files over the limit without an exception, and exceptions that no longer apply.
fn file_problems(sources: &[(String, String)], limits: &Limits<'_>) -> Vec<String> {
    let mut problems = Vec::new();
    let max = limits.file_lines;
    let lists = [("LONG_FILES", limits.long_files)];
    for (file, text) in sources {
        let lines = text.lines().count();
        let excepted_in = lists
            .iter()
            .find(|(_, files)| files.contains(&file.as_str()))
            .map(|(list, _)| *list);
        match excepted_in {
            None if lines > max => problems.push(format!(
                "{file} has {lines} lines (at most {max}): split it along its domain"
            )),
            Some(list) if lines <= max => {
                problems.push(format!(
                    "{file} has {lines} lines now: remove it from {list}"
                ));
            }
            _ => {}
        }
    }
    for (list, files) in lists {
        for listed in files {
            if !sources.iter().any(|(file, _)| file == listed) {
                problems.push(format!("{listed} is gone: remove it from {list}"));
            }
        }
    }
    problems
}

/// Functions over the limit without an exception, and exceptions that no longer apply (an
/// entry names every function of that name in its file: it applies while one of them is over
/// the limit); with the number of functions measured.
fn function_problems(sources: &[(String, String)], limits: &Limits<'_>) -> (Vec<String>, usize) {
    let mut problems = Vec::new();
    let mut measured = 0;
    let max = limits.function_lines;
    let lists = [("LONG_FUNCTIONS", limits.long_functions)];
    // The longest function of each listed (file, name), with its line.
    let mut longest: Vec<((&str, &str), usize, usize)> = Vec::new();
    for (file, text) in sources {
        for function in functions(text) {
            measured += 1;
            let listed = lists
                .iter()
                .flat_map(|(_, entries)| entries.iter())
                .find(|(f, n)| *f == file.as_str() && *n == function.name);
            if let Some(key) = listed {
                match longest.iter_mut().find(|(k, _, _)| k == key) {
                    Some(entry) if entry.2 < function.lines => {
                        *entry = (*key, function.line, function.lines);
                    }
                    Some(_) => {}
                    None => longest.push((*key, function.line, function.lines)),
                }
            } else if function.lines > max {
                problems.push(format!(
                    "{file}:{} `{}` has {} lines (at most {max}): split it into named steps",
                    function.line, function.name, function.lines
                ));
            }
        }
    }
    for (list, entries) in lists {
        for key in entries {
            let (file, name) = key;
            match longest.iter().find(|(k, _, _)| k == key) {
                None => problems.push(format!("{file} `{name}` is gone: remove it from {list}")),
                Some((_, line, lines)) if *lines <= max => problems.push(format!(
                    "{file}:{line} `{name}` has {lines} lines now: remove it from {list}"
                )),
                Some(_) => {}
            }
        }
    }
    (problems, measured)
}

#[test]
fn no_file_in_src_is_too_long() {
    let sources = sources();
    assert!(sources.len() > 50, "the walk found almost no files");
    let problems = file_problems(&sources, &project_limits());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_function_in_src_is_too_long() {
    let (problems, measured) = function_problems(&sources(), &project_limits());
    assert!(
        measured > 1000,
        "the walk found almost no functions ({measured})"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn an_over_long_file_or_function_and_a_stale_exception_fail() {
    let long_body = "    let x = 1;\n".repeat(5);
    let source = |name: &str| format!("fn {name}() {{\n{long_body}}}\n");
    let sources = vec![
        ("src/a.rs".to_owned(), source("long")),
        ("src/b.rs".to_owned(), "fn short() {}\n".to_owned()),
    ];
    let limits = Limits {
        file_lines: 6,
        function_lines: 6,
        long_files: &["src/b.rs"],
        long_functions: &[("src/b.rs", "short")],
    };
    assert_eq!(
        file_problems(&sources, &limits),
        [
            "src/a.rs has 7 lines (at most 6): split it along its domain",
            "src/b.rs has 1 lines now: remove it from LONG_FILES",
        ]
    );
    assert_eq!(
        function_problems(&sources, &limits).0,
        [
            "src/a.rs:1 `long` has 7 lines (at most 6): split it into named steps",
            "src/b.rs:1 `short` has 1 lines now: remove it from LONG_FUNCTIONS",
        ]
    );
    let excepted = Limits {
        long_files: &["src/a.rs"],
        long_functions: &[("src/a.rs", "long"), ("src/c.rs", "gone")],
        ..limits
    };
    assert!(file_problems(&sources, &excepted).is_empty());
    // An entry covers every function of its name in the file: a short one beside does not
    // make it stale.
    let mut sources = sources;
    sources[0].1.push_str("fn long() {}\n");
    assert_eq!(
        function_problems(&sources, &excepted).0,
        ["src/c.rs `gone` is gone: remove it from LONG_FUNCTIONS"]
    );
}

#[test]
fn functions_are_measured_from_fn_to_the_closing_brace() {
    let source = "\
trait T {
    fn declared(&self);
}
fn outer(a: [u8; 2]) -> impl Fn(u8) -> u8 {
    fn inner() -> &'static str { \"}\" }
    let f: fn(u8) -> u8 = |x| { x };
    f
}
";
    assert_eq!(
        functions(source),
        vec![
            Function {
                name: "outer".to_owned(),
                line: 4,
                lines: 5,
            },
            Function {
                name: "inner".to_owned(),
                line: 5,
                lines: 1,
            },
        ]
    );
}
