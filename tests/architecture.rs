//! The layering rule: the references between the top-level modules of `src/` (the crate root,
//! `lib.rs`, counting as one more module) form no cycle. Test code is left out: `#[cfg(test)]`
//! items, and the files of `#[cfg(test)] mod …;` declarations. An acyclic graph orders the
//! modules into layers, and that order is the pipeline: a module uses the modules below it (the
//! stages before it and the data they produce), never one above it. ARCHITECTURE.md names the
//! layers; when this test fails, it names the cycle and where each of its edges is made.
//!
//! A reference is a path that starts with `crate::`, `super::` or `self::`, use trees with
//! `{…}` groups over any number of lines included, or, in `lib.rs`, a path that starts with a
//! top-level module's name. The source is tokenised, so comments, strings and doc links do not
//! count. A re-export counts where it is written and where it is used, so the graph can only
//! have more paths than the real one, never miss a cycle. The walk follows `mod` declarations
//! from `lib.rs`; the binary (`main.rs`) is a separate crate on top of the library.
//!
//! The tree reads as the pipeline: beside the crate root, the binary, the command line and the
//! tool's own errors, `src/` holds only folders, one per stage or concern. Inside each folder
//! the rule holds one level down: its files and sub-folders form no cycle either.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[path = "architecture/size.rs"]
mod size;

/// The name of the crate root's node in the graph.
const ROOT: &str = "lib";

#[test]
fn top_level_modules_form_no_cycle() {
    let graph = crate_graph(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")));
    assert!(
        graph.edges.len() > 20,
        "the walk found almost no references ({}): the checker no longer reads the source",
        graph.edges.len()
    );
    if let Some(report) = cycles_report(&graph, "the top-level modules of src/") {
        panic!("{report}");
    }
}

/// Inside every folder module, the files (and sub-folders) reference each other without a
/// cycle: each folder reads as a small pipeline of its own.
#[test]
fn sibling_modules_form_no_cycle() {
    let graphs = sibling_graphs(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")));
    let edges: usize = graphs.values().map(|graph| graph.edges.len()).sum();
    assert!(
        edges > 50,
        "the walk found almost no references between sibling files ({edges})"
    );
    let reports: Vec<String> = graphs
        .iter()
        .filter_map(|(parent, graph)| {
            let what = format!("the files and folders of src/{}", parent.join("/"));
            cycles_report(graph, &what)
        })
        .collect();
    assert!(reports.is_empty(), "{}", reports.join("\n"));
}

/// The files `src/` may hold beside its folders.
const TOP_LEVEL_FILES: [&str; 4] = ["cli.rs", "error.rs", "lib.rs", "main.rs"];

#[test]
fn top_level_holds_only_folders_beside_the_crate_root() {
    let src = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src"));
    let mut strays: Vec<String> = std::fs::read_dir(src)
        .expect("src/ is readable")
        .map(|entry| entry.expect("src/ is readable").path())
        .filter(|path| path.is_file())
        .map(|path| {
            path.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| !TOP_LEVEL_FILES.contains(&name.as_str()))
        .collect();
    strays.sort();
    assert!(
        strays.is_empty(),
        "src/ holds {}: a module goes into the folder of its stage (ARCHITECTURE.md)",
        strays.join(", ")
    );
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Ident(String),
    PathSep,
    Punct(char),
    Literal,
}

/// A reference from one module to another, with the place that makes it.
#[derive(Debug, Clone)]
struct Reference {
    /// The full module path of the referring module (`["commands", "fix", "run"]`).
    from: Vec<String>,
    /// The referenced path resolved from the crate root (`["check", "Options"]`).
    to: Vec<String>,
    file: String,
    line: usize,
}

/// What one file holds: its references, and the non-test `mod name;` declarations.
#[derive(Debug, Default)]
struct Scan {
    references: Vec<Reference>,
    children: Vec<(Vec<String>, String)>,
}

#[derive(Debug, Default)]
struct Graph {
    /// From top-level node to top-level node, with the references that make the edge.
    edges: BTreeMap<(String, String), Vec<Reference>>,
    nodes: BTreeSet<String>,
}

fn tokenize(source: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        let start_line = line;
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_string(&chars, i + 1, &mut line);
            tokens.push((Token::Literal, start_line));
        } else if c == '\'' {
            if at(i + 1) == '\\' {
                // The quote, the backslash and the escaped character, then up to the close.
                i += 3;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
                tokens.push((Token::Literal, start_line));
            } else if at(i + 2) == '\'' {
                i += 3;
                tokens.push((Token::Literal, start_line));
            } else {
                // A lifetime or a label: its name is read as an identifier next.
                i += 1;
            }
        } else if c == ':' && at(i + 1) == ':' {
            tokens.push((Token::PathSep, start_line));
            i += 2;
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            let begin = i;
            i += 1;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[begin..i].iter().collect();
            let raw_prefix = matches!(word.as_str(), "r" | "br" | "cr");
            if matches!(word.as_str(), "b" | "c" | "r" | "br" | "cr") && at(i) == '"' {
                i = if raw_prefix {
                    skip_raw_string(&chars, i, &mut line)
                } else {
                    skip_string(&chars, i + 1, &mut line)
                };
                tokens.push((Token::Literal, start_line));
            } else if raw_prefix && at(i) == '#' && (at(i + 1) == '"' || at(i + 1) == '#') {
                i = skip_raw_string(&chars, i, &mut line);
                tokens.push((Token::Literal, start_line));
            } else if word == "b" && at(i) == '\'' {
                i += if at(i + 1) == '\\' { 4 } else { 3 };
                while i < chars.len() && chars[i - 1] != '\'' {
                    i += 1;
                }
                tokens.push((Token::Literal, start_line));
            } else if word == "r" && at(i) == '#' {
                // A raw identifier such as `r#type`: the `#` is dropped, the name read next.
                i += 1;
            } else if word.starts_with(|c: char| c.is_ascii_digit()) {
                tokens.push((Token::Literal, start_line));
            } else {
                let word = if word == "$crate" {
                    "crate".to_owned()
                } else {
                    word
                };
                tokens.push((Token::Ident(word), start_line));
            }
        } else {
            tokens.push((Token::Punct(c), start_line));
            i += 1;
        }
    }
    tokens
}

/// Skips a string body from just after its opening quote; returns the index after the close.
fn skip_string(chars: &[char], mut i: usize, line: &mut usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            '\n' => {
                *line += 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    i
}

/// Skips a raw string from its first `#` or quote; returns the index after the close.
fn skip_raw_string(chars: &[char], mut i: usize, line: &mut usize) -> usize {
    let mut hashes = 0;
    while chars.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    i += 1;
    while i < chars.len() {
        if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
            return i + 1 + hashes;
        }
        if chars[i] == '\n' {
            *line += 1;
        }
        i += 1;
    }
    i
}

/// Finds the references and child modules of one file. `module` is the file's module path;
/// `top` the names of the top-level modules (which start paths in the crate root).
fn scan_file(source: &str, file: &str, module: &[String], top: &BTreeSet<String>) -> Scan {
    let tokens = tokenize(source);
    let mut scan = Scan::default();
    let mut context = Context {
        tokens: &tokens,
        file,
        top,
        scan: &mut scan,
    };
    context.scan_items(0, tokens.len(), module);
    scan
}

struct Context<'a> {
    tokens: &'a [(Token, usize)],
    file: &'a str,
    top: &'a BTreeSet<String>,
    scan: &'a mut Scan,
}

impl Context<'_> {
    fn token(&self, i: usize) -> Option<&Token> {
        self.tokens.get(i).map(|(token, _)| token)
    }

    fn is_punct(&self, i: usize, c: char) -> bool {
        self.token(i) == Some(&Token::Punct(c))
    }

    fn ident(&self, i: usize) -> Option<&str> {
        match self.token(i) {
            Some(Token::Ident(name)) => Some(name),
            _ => None,
        }
    }

    /// The index just after the bracket group that opens at `i`.
    fn skip_group(&self, mut i: usize) -> usize {
        let mut depth = 0usize;
        while i < self.tokens.len() {
            match self.token(i) {
                Some(Token::Punct('(' | '[' | '{')) => depth += 1,
                Some(Token::Punct(')' | ']' | '}')) => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return i + 1;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        i
    }

    /// The index just after the item that starts at `i`: its `;` or its first `{…}` block.
    fn skip_item(&self, mut i: usize) -> usize {
        while i < self.tokens.len() {
            match self.token(i) {
                Some(Token::Punct(';')) => return i + 1,
                Some(Token::Punct('{')) => return self.skip_group(i),
                Some(Token::Punct('(' | '[')) => i = self.skip_group(i),
                _ => i += 1,
            }
        }
        i
    }

    fn scan_items(&mut self, mut i: usize, end: usize, module: &[String]) {
        let mut test_only = false;
        while i < end {
            if self.is_punct(i, '#') {
                let open = if self.is_punct(i + 1, '!') {
                    i + 2
                } else {
                    i + 1
                };
                if self.is_punct(open, '[') {
                    let close = self.skip_group(open);
                    if self.is_cfg_test(open + 1, close - 1) {
                        if open == i + 2 {
                            // `#![cfg(test)]`: the whole module is test code.
                            return;
                        }
                        test_only = true;
                    }
                    i = close;
                    continue;
                }
            }
            if test_only {
                test_only = false;
                i = self.skip_item(i);
                continue;
            }
            if self.ident(i) == Some("mod")
                && let Some(name) = self.ident(i + 1)
            {
                let mut child = module.to_vec();
                child.push(name.to_owned());
                if self.is_punct(i + 2, ';') {
                    let line = self.tokens[i].1;
                    self.scan
                        .children
                        .push((child, format!("{}:{line}", self.file)));
                    i += 3;
                    continue;
                }
                if self.is_punct(i + 2, '{') {
                    let close = self.skip_group(i + 2);
                    self.scan_items(i + 3, close - 1, &child);
                    i = close;
                    continue;
                }
            }
            i = self.maybe_path(i, module);
        }
    }

    /// Whether the attribute between `start` and `end` is `cfg(…)` that holds only for tests.
    fn is_cfg_test(&self, start: usize, end: usize) -> bool {
        let words: Vec<&str> = (start..end).filter_map(|i| self.ident(i)).collect();
        words.first() == Some(&"cfg") && words.contains(&"test") && !words.contains(&"not")
    }

    /// Records the references of a path starting at `i`, if one does; returns the next index.
    fn maybe_path(&mut self, i: usize, module: &[String]) -> usize {
        let after_separator = i > 0 && self.token(i - 1) == Some(&Token::PathSep);
        let starts_path = match self.ident(i) {
            Some("crate" | "super" | "self") => true,
            Some(name) => module.is_empty() && self.top.contains(name),
            None => false,
        };
        if after_separator || !starts_path || self.token(i + 1) != Some(&Token::PathSep) {
            return i + 1;
        }
        let line = self.tokens[i].1;
        let mut paths = Vec::new();
        let next = self.use_tree(i, Vec::new(), &mut paths);
        for path in paths {
            let to = resolve(module, &path);
            self.scan.references.push(Reference {
                from: module.to_vec(),
                to,
                file: self.file.to_owned(),
                line,
            });
        }
        next.max(i + 1)
    }

    /// Reads a path or a use tree (`a::b::{c, d::{e, f}}`) from `i`; pushes each full path.
    fn use_tree(
        &self,
        mut i: usize,
        mut prefix: Vec<String>,
        paths: &mut Vec<Vec<String>>,
    ) -> usize {
        loop {
            match self.token(i) {
                Some(Token::Ident(name)) => {
                    // `self` inside a group names the group's prefix.
                    if name != "self" || prefix.is_empty() {
                        prefix.push(name.clone());
                    }
                    i += 1;
                    if self.token(i) == Some(&Token::PathSep) {
                        i += 1;
                        continue;
                    }
                    paths.push(prefix);
                    return i;
                }
                Some(Token::Punct('{')) => {
                    i += 1;
                    while i < self.tokens.len() && !self.is_punct(i, '}') {
                        i = self.use_tree(i, prefix.clone(), paths);
                        // Skip `as name` and anything else up to the next item of the group.
                        while i < self.tokens.len()
                            && !self.is_punct(i, ',')
                            && !self.is_punct(i, '}')
                        {
                            i = if self.is_punct(i, '{') {
                                self.skip_group(i)
                            } else {
                                i + 1
                            };
                        }
                        if self.is_punct(i, ',') {
                            i += 1;
                        }
                    }
                    return i + 1;
                }
                _ => {
                    // `*`, a turbofish or the end of a path.
                    paths.push(prefix);
                    return i;
                }
            }
        }
    }
}

/// The path from the crate root that `path`, written in `module`, names.
fn resolve(module: &[String], path: &[String]) -> Vec<String> {
    let mut resolved = module.to_vec();
    let mut leading = true;
    for segment in path {
        match segment.as_str() {
            "crate" if leading => resolved.clear(),
            "self" if leading => {}
            "super" if leading => {
                resolved.pop();
            }
            _ => {
                leading = false;
                resolved.push(segment.clone());
            }
        }
    }
    resolved
}

/// Every module of the crate (its path from the crate root) and every reference, walking the
/// module tree from `src/lib.rs`.
struct Crate {
    top: BTreeSet<String>,
    modules: BTreeSet<Vec<String>>,
    references: Vec<Reference>,
}

fn walk_crate(src: &Path) -> Crate {
    let lib = src.join("lib.rs");
    let root_source = std::fs::read_to_string(&lib).expect("src/lib.rs is readable");
    let first = scan_file(&root_source, "src/lib.rs", &[], &BTreeSet::new());
    let top: BTreeSet<String> = first
        .children
        .iter()
        .map(|(module, _)| module[0].clone())
        .collect();
    let mut walked = Crate {
        top,
        modules: BTreeSet::new(),
        references: Vec::new(),
    };
    let mut pending: Vec<(Vec<String>, PathBuf)> = vec![(Vec::new(), lib)];
    while let Some((module, path)) = pending.pop() {
        let source = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{} is unreadable: {e}", path.display()));
        let shown = format!("src/{}", path.strip_prefix(src).unwrap_or(&path).display());
        let scan = scan_file(&source, &shown, &module, &walked.top);
        for (child, declared_at) in scan.children {
            pending.push((child.clone(), child_file(src, &child, &declared_at)));
        }
        walked.references.extend(scan.references);
        walked.modules.insert(module);
    }
    walked
}

/// Walks the module tree from `src/lib.rs` and builds the graph between top-level modules.
fn crate_graph(src: &Path) -> Graph {
    let walked = walk_crate(src);
    let mut graph = Graph::default();
    graph.nodes.insert(ROOT.to_owned());
    graph.nodes.extend(walked.top.iter().cloned());
    for reference in walked.references {
        let from = node(&reference.from, &walked.top);
        let to = node(&reference.to, &walked.top);
        if from != to {
            graph.edges.entry((from, to)).or_default().push(reference);
        }
    }
    graph
}

/// For every module with sub-modules, the graph between its direct sub-modules (sibling files
/// and folders): an edge where code in one names an item inside another. The parent's own file
/// is left out, so a re-export there (`pub use child::Item;`) ties nothing, and a reference that
/// reaches a sibling's item through such a re-export is not seen.
fn sibling_graphs(src: &Path) -> BTreeMap<Vec<String>, Graph> {
    let walked = walk_crate(src);
    let mut graphs: BTreeMap<Vec<String>, Graph> = BTreeMap::new();
    for module in &walked.modules {
        if let Some((_, parent)) = module.split_last() {
            graphs
                .entry(parent.to_vec())
                .or_default()
                .nodes
                .insert(module.last().expect("a sub-module has a name").clone());
        }
    }
    for reference in walked.references {
        for (parent, graph) in &mut graphs {
            let depth = parent.len();
            let child_of = |path: &[String]| {
                (path.len() > depth && path[..depth] == parent[..])
                    .then(|| path[depth].clone())
                    .filter(|child| graph.nodes.contains(child))
            };
            if let (Some(from), Some(to)) = (child_of(&reference.from), child_of(&reference.to))
                && from != to
            {
                graph
                    .edges
                    .entry((from, to))
                    .or_default()
                    .push(reference.clone());
            }
        }
    }
    graphs
}

/// The file of module `module` (`a::b` is `src/a/b.rs` or `src/a/b/mod.rs`).
fn child_file(src: &Path, module: &[String], declared_at: &str) -> PathBuf {
    let mut base = src.to_path_buf();
    for segment in module {
        base.push(segment);
    }
    let flat = base.with_extension("rs");
    let folder = base.join("mod.rs");
    if flat.is_file() {
        flat
    } else if folder.is_file() {
        folder
    } else {
        panic!(
            "the module `{}` declared at {declared_at} has no file",
            module.join("::")
        )
    }
}

/// The graph node of a module path: its top-level module, or the crate root's items.
fn node(path: &[String], top: &BTreeSet<String>) -> String {
    match path.first() {
        Some(first) if top.contains(first) => first.clone(),
        _ => ROOT.to_owned(),
    }
}

/// The strongly connected components of more than one node, each with a shortest cycle and
/// the references that make each of its edges; `None` when the graph is acyclic.
fn cycles_report(graph: &Graph, what: &str) -> Option<String> {
    let components = strongly_connected(graph);
    let loops: Vec<&BTreeSet<String>> = components.iter().filter(|c| c.len() > 1).collect();
    if loops.is_empty() {
        return None;
    }
    let mut report = format!(
        "{what} form a cycle; remove one of its edges (ARCHITECTURE.md gives the order: a \
         module uses only the modules below it)\n"
    );
    for component in loops {
        let members: Vec<&str> = component.iter().map(String::as_str).collect();
        let _ = writeln!(report, "\nmodules in one cycle: {}", members.join(", "));
        let cycle = component
            .iter()
            .map(|start| shortest_cycle(graph, component, start))
            .min_by_key(Vec::len)
            .expect("a component has a node");
        let _ = writeln!(report, "shortest cycle: {}", cycle.join(" -> "));
        for step in cycle.windows(2) {
            let key = (step[0].clone(), step[1].clone());
            let _ = writeln!(
                report,
                "  {} -> {}: {}",
                step[0],
                step[1],
                places(&graph.edges[&key])
            );
        }
        report.push_str("every edge inside the cycle:\n");
        for ((from, to), references) in &graph.edges {
            if component.contains(from) && component.contains(to) {
                let _ = writeln!(report, "  {from} -> {to}: {}", places(references));
            }
        }
    }
    Some(report)
}

/// Where an edge is made: the first three references, and how many more there are.
fn places(references: &[Reference]) -> String {
    let mut text: Vec<String> = references
        .iter()
        .take(3)
        .map(|r| format!("{}:{} ({})", r.file, r.line, r.to.join("::")))
        .collect();
    if references.len() > 3 {
        text.push(format!("and {} more", references.len() - 3));
    }
    text.join(", ")
}

fn successors<'a>(graph: &'a Graph, node: &str) -> impl Iterator<Item = &'a String> {
    graph
        .edges
        .keys()
        .filter(move |(from, _)| from == node)
        .map(|(_, to)| to)
}

/// Strongly connected components, by repeated reachability (the graph has a few dozen nodes).
fn strongly_connected(graph: &Graph) -> Vec<BTreeSet<String>> {
    let reach = |start: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut queue = VecDeque::from([start.to_owned()]);
        while let Some(node) = queue.pop_front() {
            for next in successors(graph, &node) {
                if seen.insert(next.clone()) {
                    queue.push_back(next.clone());
                }
            }
        }
        seen
    };
    let reachable: BTreeMap<&String, BTreeSet<String>> =
        graph.nodes.iter().map(|n| (n, reach(n))).collect();
    let mut components: Vec<BTreeSet<String>> = Vec::new();
    for node in &graph.nodes {
        if components.iter().any(|c| c.contains(node)) {
            continue;
        }
        let mut component: BTreeSet<String> = reachable[node]
            .iter()
            .filter(|other| reachable[other].contains(node))
            .cloned()
            .collect();
        component.insert(node.clone());
        components.push(component);
    }
    components
}

/// A shortest cycle through `start` inside `component`, by breadth-first search.
fn shortest_cycle(graph: &Graph, component: &BTreeSet<String>, start: &str) -> Vec<String> {
    let start = start.to_owned();
    let mut parent: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = VecDeque::from([start.clone()]);
    while let Some(node) = queue.pop_front() {
        for next in successors(graph, &node) {
            if *next == start {
                let mut cycle = vec![start.clone(), node.clone()];
                let mut at = node.clone();
                while let Some(previous) = parent.get(&at) {
                    cycle.push(previous.clone());
                    at = previous.clone();
                }
                cycle.push(start.clone());
                cycle.dedup();
                cycle.reverse();
                return cycle;
            }
            if component.contains(next) && !parent.contains_key(next) && *next != start {
                parent.insert(next.clone(), node.clone());
                queue.push_back(next.clone());
            }
        }
    }
    vec![start]
}

#[cfg(test)]
mod checker {
    //! The checker itself reads what it should: these fail if it misses or invents references.

    use super::*;

    fn module(path: &str) -> Vec<String> {
        path.split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    }

    fn targets(source: &str, at: &str) -> Vec<String> {
        let top: BTreeSet<String> = ["a", "b", "c", "d"].map(str::to_owned).into();
        let scan = scan_file(source, "test.rs", &module(at), &top);
        scan.references.iter().map(|r| r.to.join("::")).collect()
    }

    #[test]
    fn reads_groups_over_lines_and_nested() {
        let source = "use crate::{\n    a::X,\n    b::{self, c::Y as Z},\n};\nuse crate::d::*;";
        assert_eq!(targets(source, "e"), ["a::X", "b", "b::c::Y", "d"]);
    }

    #[test]
    fn resolves_super_and_self() {
        let source = "use super::b::X; use super::super::c::Y; fn f() { self::g::h(); }";
        assert_eq!(
            targets(source, "a::m::n"),
            ["a::m::b::X", "a::c::Y", "a::m::n::g::h"]
        );
        assert_eq!(targets("use super::{b::X, c};", "a"), ["b::X", "c"]);
    }

    #[test]
    fn reads_paths_in_expressions_and_macros() {
        let source = "fn f() -> crate::a::T { crate::b::g::<u8>(); $crate::c::h!() }";
        assert_eq!(targets(source, "e"), ["a::T", "b::g", "c::h"]);
    }

    #[test]
    fn ignores_comments_strings_and_test_code() {
        let source = r##"
            // crate::a::X
            /* crate::b::Y /* nested */ crate::b::Z */
            const S: &str = "crate::c::W \" crate::c::V";
            const R: &str = r#"crate::d::U"#;
            const C: char = '"'; const L: &'static str = ""; const Q: char = '\'';
            const B: u8 = b'\''; const D: &[u8] = br#"crate::a::Y"#;
            #[cfg(test)]
            mod tests { use crate::a::T; }
            #[cfg(test)]
            fn helper() { crate::b::h(); }
            #[cfg(test)]
            mod file_tests;
            #[cfg(not(test))]
            use crate::d::Kept;
        "##;
        let top: BTreeSet<String> = ["a", "b", "c", "d"].map(str::to_owned).into();
        let scan = scan_file(source, "test.rs", &module("e"), &top);
        let found: Vec<String> = scan.references.iter().map(|r| r.to.join("::")).collect();
        assert_eq!(found, ["d::Kept"]);
        assert!(scan.children.is_empty(), "{:?}", scan.children);
    }

    #[test]
    fn the_crate_root_references_modules_by_name() {
        let source = "pub mod a;\nmod b;\nuse a::X;\nfn f() { b::g(); std::a::h(); }";
        assert_eq!(targets(source, ""), ["a::X", "b::g"]);
    }

    fn edge(graph: &mut Graph, from: &str, to: &str, line: usize) {
        graph.nodes.extend([from.to_owned(), to.to_owned()]);
        let reference = Reference {
            from: module(from),
            to: module(to),
            file: format!("src/{from}.rs"),
            line,
        };
        let key = (from.to_owned(), to.to_owned());
        graph.edges.entry(key).or_default().push(reference);
    }

    #[test]
    fn reports_a_cycle_with_its_places() {
        let mut graph = Graph::default();
        edge(&mut graph, "a", "b", 1);
        edge(&mut graph, "b", "c", 2);
        edge(&mut graph, "c", "d", 3);
        assert!(cycles_report(&graph, "modules").is_none());
        edge(&mut graph, "c", "a", 4);
        let report = cycles_report(&graph, "modules").expect("a -> b -> c -> a is a cycle");
        assert!(
            report.contains("modules in one cycle: a, b, c\n"),
            "{report}"
        );
        assert!(
            report.contains("shortest cycle: a -> b -> c -> a\n"),
            "{report}"
        );
        assert!(report.contains("c -> a: src/c.rs:4 (a)"), "{report}");
    }
}

/// The integration tests are one crate (Cargo.toml turns off the discovery of `tests/*.rs`): a
/// test file without its `mod` line in tests/integration.rs would never be compiled or run.
#[test]
fn every_test_file_is_a_module_of_the_test_crate() {
    let tests = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests"));
    let root = std::fs::read_to_string(tests.join("integration.rs")).expect("tests/integration.rs");
    let declared: BTreeSet<&str> = root
        .lines()
        .filter_map(|line| line.strip_prefix("mod ")?.strip_suffix(';'))
        .collect();
    let mut files = BTreeSet::new();
    for entry in std::fs::read_dir(tests).expect("tests/") {
        let path = entry.expect("an entry of tests/").path();
        let is_module = if path.is_dir() {
            path.join("mod.rs").is_file()
        } else {
            path.extension().is_some_and(|ext| ext == "rs")
        };
        let name = path
            .file_stem()
            .and_then(|stem| stem.to_str())
            .unwrap_or_default();
        if is_module && name != "integration" {
            files.insert(name.to_owned());
        }
    }
    let missing: Vec<&String> = files
        .iter()
        .filter(|name| !declared.contains(name.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "tests/integration.rs has no `mod` line for {missing:?}"
    );
    assert!(
        files.len() > 60,
        "the walk of tests/ found {} files",
        files.len()
    );
}
