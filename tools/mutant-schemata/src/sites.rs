//! Where each mutable node of a file sits: the byte ranges of the operators, arms, guards and
//! function bodies cargo-mutants names by the line and column of their first character.

use proc_macro2::{LineColumn, Span};
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::visit::Visit;

/// A byte range of the source text, end excluded.
pub(crate) type Range = (usize, usize);

/// A 1-based line and 1-based column in characters, as cargo-mutants writes positions.
pub(crate) type Position = (usize, usize);

pub(crate) struct BinarySite {
    pub(crate) whole: Range,
    pub(crate) left: Range,
    pub(crate) right: Range,
    /// A `let` on either side: a `let` chain, which an `if … else` cannot wrap.
    pub(crate) in_let_chain: bool,
}

pub(crate) struct UnarySite {
    pub(crate) whole: Range,
    pub(crate) operand: Range,
}

pub(crate) struct ArmSite {
    pub(crate) pattern_end: usize,
    pub(crate) guard: Option<Range>,
}

#[derive(Default)]
pub(crate) struct Sites {
    pub(crate) binary: HashMap<Position, BinarySite>,
    pub(crate) unary: HashMap<Position, UnarySite>,
    pub(crate) arms: HashMap<Position, ArmSite>,
    pub(crate) guards: HashMap<Position, Range>,
    /// The blocks of every function body, braces included.
    pub(crate) bodies: Vec<Range>,
}

/// Turns `proc-macro2` line/column positions into byte offsets of the text.
pub(crate) struct LineIndex<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let breaks = text.match_indices('\n').map(|(at, _)| at + 1);
        Self {
            text,
            line_starts: std::iter::once(0).chain(breaks).collect(),
        }
    }

    /// The byte offset of a 1-based line and a 0-based column in characters.
    pub(crate) fn offset(&self, at: LineColumn) -> usize {
        let start = self
            .line_starts
            .get(at.line.saturating_sub(1))
            .copied()
            .unwrap_or(self.text.len());
        self.text[start..]
            .char_indices()
            .nth(at.column)
            .map_or(self.text.len(), |(i, _)| start + i)
    }

    pub(crate) fn range(&self, span: Span) -> Range {
        (self.offset(span.start()), self.offset(span.end()))
    }
}

pub(crate) fn collect(file: &syn::File, index: &LineIndex<'_>) -> Sites {
    let mut visitor = SiteVisitor {
        index,
        sites: Sites::default(),
    };
    visitor.visit_file(file);
    visitor.sites
}

fn position(span: Span) -> Position {
    let start = span.start();
    (start.line, start.column + 1)
}

fn has_let(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Let(_) => true,
        syn::Expr::Binary(binary) => has_let(&binary.left) || has_let(&binary.right),
        _ => false,
    }
}

struct SiteVisitor<'a> {
    index: &'a LineIndex<'a>,
    sites: Sites,
}

impl<'ast> Visit<'ast> for SiteVisitor<'_> {
    fn visit_expr_binary(&mut self, expr: &'ast syn::ExprBinary) {
        let site = BinarySite {
            whole: self.index.range(expr.span()),
            left: self.index.range(expr.left.span()),
            right: self.index.range(expr.right.span()),
            in_let_chain: has_let(&expr.left) || has_let(&expr.right),
        };
        self.sites.binary.insert(position(expr.op.span()), site);
        syn::visit::visit_expr_binary(self, expr);
    }

    fn visit_expr_unary(&mut self, expr: &'ast syn::ExprUnary) {
        let site = UnarySite {
            whole: self.index.range(expr.span()),
            operand: self.index.range(expr.expr.span()),
        };
        self.sites.unary.insert(position(expr.op.span()), site);
        syn::visit::visit_expr_unary(self, expr);
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        let guard = arm.guard.as_ref().map(|(_, guard)| guard.span());
        if let Some(span) = guard {
            self.sites
                .guards
                .insert(position(span), self.index.range(span));
        }
        let site = ArmSite {
            pattern_end: self.index.range(arm.pat.span()).1,
            guard: guard.map(|span| self.index.range(span)),
        };
        self.sites.arms.insert(position(arm.pat.span()), site);
        syn::visit::visit_arm(self, arm);
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        self.sites.bodies.push(self.index.range(item.block.span()));
        syn::visit::visit_item_fn(self, item);
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        self.sites.bodies.push(self.index.range(item.block.span()));
        syn::visit::visit_impl_item_fn(self, item);
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if let Some(block) = &item.default {
            self.sites.bodies.push(self.index.range(block.span()));
        }
        syn::visit::visit_trait_item_fn(self, item);
    }
}
