//! The rewrite: each mutant placed at its node, then the text written once with every mutant
//! behind its switch.
//!
//! - a function's value: `if crate::__mutant_on(N) { return VALUE; }` first in its body;
//! - an operator: the whole expression becomes
//!   `(if crate::__mutant_on(N) { MUTATED } else if … else { ORIGINAL })`, one chain for all the
//!   mutants of that expression, with the mutants nested in its operands written in every branch;
//! - a match guard: the guard becomes such a chain, with the replacement as the mutated branch;
//! - a deleted match arm: the guard `if !crate::__mutant_on(N)`, or its guard switched to `false`.

use crate::mutant::{Genre, Mutant};
use crate::sites::{self, LineIndex, Range, Sites};
use std::collections::{BTreeMap, HashMap};

/// Whether a mutant was written into the text, and if not why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Placed,
    /// An operator of a `let` chain: not wrappable, and a compile error for cargo-mutants too.
    LetChain,
    /// No node of the mutant's genre starts at its position.
    NotFound,
    UnknownGenre,
}

impl Outcome {
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Placed => "placed",
            Self::LetChain => "let-chain",
            Self::NotFound => "not-found",
            Self::UnknownGenre => "unknown-genre",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Placement {
    pub id: u32,
    pub name: String,
    pub outcome: Outcome,
    /// The bytes of the rewritten text that hold the mutated code (its last copy), so that a
    /// compile error there is this mutant's.
    pub region: Option<Range>,
}

#[derive(Clone, Debug)]
pub struct Rewritten {
    pub text: String,
    pub placements: Vec<Placement>,
}

/// Writes every mutant into `source` behind its switch.
pub fn rewrite(source: &str, mutants: &[Mutant]) -> syn::Result<Rewritten> {
    let index = LineIndex::new(source);
    let sites = sites::collect(&syn::parse_file(source)?, &index);
    let mut plan = Plan::default();
    let mut placements: Vec<Placement> = mutants
        .iter()
        .map(|mutant| Placement {
            id: mutant.id,
            name: mutant.name.clone(),
            outcome: plan.place(mutant, &sites, &index),
            region: None,
        })
        .collect();
    let mut writer = Writer::new(source, plan);
    writer.write(0, source.len(), false);
    for placement in &mut placements {
        placement.region = writer.regions.get(&placement.id).copied();
    }
    Ok(Rewritten {
        text: writer.out,
        placements,
    })
}

#[derive(Clone, Debug)]
enum Piece {
    Text(String),
    /// Source text, written with the mutants nested in it.
    Source(Range),
}

struct Variant {
    id: u32,
    pieces: Vec<Piece>,
}

struct Insertion {
    at: usize,
    id: u32,
    text: String,
}

/// The mutants as edits of the source: expressions replaced by a chain of variants, and text
/// inserted at a point.
#[derive(Default)]
struct Plan {
    replacements: BTreeMap<Range, Vec<Variant>>,
    insertions: Vec<Insertion>,
}

impl Plan {
    fn place(&mut self, mutant: &Mutant, sites: &Sites, index: &LineIndex<'_>) -> Outcome {
        let at = (mutant.line, mutant.column);
        let id = mutant.id;
        match &mutant.genre {
            Genre::BinaryOperator => match sites.binary.get(&at) {
                Some(site) if site.in_let_chain => Outcome::LetChain,
                Some(site) => {
                    let operator = Piece::Text(format!(" {} ", mutant.replacement));
                    let pieces = vec![
                        Piece::Source(site.left),
                        operator,
                        Piece::Source(site.right),
                    ];
                    self.replace(site.whole, id, pieces)
                }
                None => Outcome::NotFound,
            },
            Genre::UnaryOperator => match sites.unary.get(&at) {
                Some(site) => self.replace(site.whole, id, vec![Piece::Source(site.operand)]),
                None => Outcome::NotFound,
            },
            Genre::MatchArmGuard => match sites.guards.get(&at) {
                Some(guard) => {
                    self.replace(*guard, id, vec![Piece::Text(mutant.replacement.clone())])
                }
                None => Outcome::NotFound,
            },
            Genre::MatchArm => match sites.arms.get(&at) {
                Some(arm) => match arm.guard {
                    Some(guard) => self.replace(guard, id, vec![Piece::Text("false".to_owned())]),
                    None => self.insert(
                        arm.pattern_end,
                        id,
                        format!(" if !crate::__mutant_on({id})"),
                    ),
                },
                None => Outcome::NotFound,
            },
            Genre::FnValue => {
                let start = index.offset(proc_macro2::LineColumn {
                    line: mutant.line,
                    column: mutant.column - 1,
                });
                match innermost_body(&sites.bodies, start) {
                    Some((open_brace, _)) => {
                        let text = format!(
                            " if crate::__mutant_on({id}) {{ return {}; }}",
                            mutant.replacement
                        );
                        self.insert(open_brace + 1, id, text)
                    }
                    None => Outcome::NotFound,
                }
            }
            Genre::Other(_) => Outcome::UnknownGenre,
        }
    }

    fn replace(&mut self, range: Range, id: u32, pieces: Vec<Piece>) -> Outcome {
        self.replacements
            .entry(range)
            .or_default()
            .push(Variant { id, pieces });
        Outcome::Placed
    }

    fn insert(&mut self, at: usize, id: u32, text: String) -> Outcome {
        self.insertions.push(Insertion { at, id, text });
        Outcome::Placed
    }
}

/// The smallest function body that holds `at` (a function's span starts before its body).
fn innermost_body(bodies: &[Range], at: usize) -> Option<Range> {
    bodies
        .iter()
        .filter(|(start, end)| *start < at && at <= *end)
        .min_by_key(|(start, end)| end - start)
        .copied()
}

/// An edit inside the range being written.
enum Edit {
    Insertion { at: usize, index: usize },
    Replacement { range: Range },
}

impl Edit {
    fn start(&self) -> usize {
        match self {
            Self::Insertion { at, .. } => *at,
            Self::Replacement { range } => range.0,
        }
    }

    /// The order edits are met in: by start, an insertion before a replacement that starts at
    /// the same byte, and the widest replacement first.
    fn order(&self) -> (usize, u8, std::cmp::Reverse<usize>) {
        match self {
            Self::Insertion { at, .. } => (*at, 0, std::cmp::Reverse(0)),
            Self::Replacement { range } => (range.0, 1, std::cmp::Reverse(range.1)),
        }
    }
}

struct Writer<'a> {
    source: &'a str,
    plan: Plan,
    out: String,
    regions: HashMap<u32, Range>,
}

impl<'a> Writer<'a> {
    fn new(source: &'a str, plan: Plan) -> Self {
        Self {
            source,
            plan,
            out: String::with_capacity(source.len() * 2),
            regions: HashMap::new(),
        }
    }

    /// Writes `start..end` of the source with the edits inside it; `inside_replacement` leaves
    /// out the replacement of exactly this range (its original branch is being written).
    fn write(&mut self, start: usize, end: usize, inside_replacement: bool) {
        let mut cursor = start;
        for edit in self.edits_within(start, end, inside_replacement) {
            if edit.start() < cursor {
                continue; // nested in an edit already written, which wrote it
            }
            self.out.push_str(&self.source[cursor..edit.start()]);
            cursor = match edit {
                Edit::Insertion { at, index } => {
                    self.write_insertion(index);
                    at
                }
                Edit::Replacement { range } => {
                    self.write_replacement(range);
                    range.1
                }
            };
        }
        self.out.push_str(&self.source[cursor..end]);
    }

    fn edits_within(&self, start: usize, end: usize, inside_replacement: bool) -> Vec<Edit> {
        let insertions = (self.plan.insertions.iter().enumerate())
            .filter(|(_, insertion)| (start..end).contains(&insertion.at))
            .map(|(index, insertion)| Edit::Insertion {
                at: insertion.at,
                index,
            });
        let replacements = (self.plan.replacements.keys())
            .filter(|&&(from, to)| {
                from >= start && to <= end && !(inside_replacement && (from, to) == (start, end))
            })
            .map(|&range| Edit::Replacement { range });
        let mut edits: Vec<Edit> = insertions.chain(replacements).collect();
        edits.sort_by_key(Edit::order);
        edits
    }

    fn write_insertion(&mut self, index: usize) {
        let insertion = &self.plan.insertions[index];
        let from = self.out.len();
        self.out.push_str(&insertion.text);
        self.regions.insert(insertion.id, (from, self.out.len()));
    }

    fn write_replacement(&mut self, range: Range) {
        let variants: Vec<(u32, Vec<Piece>)> = self.plan.replacements[&range]
            .iter()
            .map(|variant| (variant.id, variant.pieces.clone()))
            .collect();
        self.out.push('(');
        for (id, pieces) in variants {
            let from = self.out.len();
            self.out.push_str("if crate::__mutant_on(");
            self.out.push_str(&id.to_string());
            self.out.push_str(") { ");
            for piece in pieces {
                match piece {
                    Piece::Text(text) => self.out.push_str(&text),
                    Piece::Source((start, end)) => self.write(start, end, false),
                }
            }
            self.regions.insert(id, (from, self.out.len()));
            self.out.push_str(" } else ");
        }
        self.out.push_str("{ ");
        self.write(range.0, range.1, true);
        self.out.push_str(" })");
    }
}
