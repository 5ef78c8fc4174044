//! One pass over the text that reads Flux's `${…}` expressions and evaluates each one when its
//! closing brace is read. Expressions nest inside arguments (`${a:-${b}}`); they are kept on an
//! explicit stack, so neither the depth of nesting nor the length of the text can exhaust the
//! call stack, and every byte is looked at a bounded number of times.
//!
//! The token rules are upstream's scanner modes: which characters a run of text accepts in each
//! place, where `$$`, `\\` and `\/` are escapes, and which error each unexpected token gives.
//! Upstream parses the whole text before it evaluates anything, so a syntax error anywhere wins
//! over an evaluation error before it; here the first evaluation error is kept and returned only
//! once the whole text has parsed. Arguments are evaluated before the variable itself is looked
//! at (so `${a:-${b}}` needs `b` in strict mode even when `a` is set), in upstream's order.

use std::ops::Range;

use super::funcs::{self, Fault, Limits, Operator};
use super::{Reference, Strictness, Substitution, SubstitutionError, SyntaxProblem, Variables};

/// What the pass produced: the bytes (not yet checked to be UTF-8) and the expressions.
pub(super) struct Evaluated {
    pub(super) bytes: Vec<u8>,
    pub(super) substitutions: Vec<Substitution>,
}

/// Evaluates `text`.
pub(super) fn evaluate(
    text: &str,
    variables: &Variables,
    strictness: Strictness,
    limits: Limits,
) -> Result<Evaluated, SubstitutionError> {
    let mut pass = Pass {
        text: text.as_bytes(),
        pos: 0,
        token: Vec::new(),
        stack: Vec::new(),
        out: Vec::with_capacity(text.len()),
        substitutions: Vec::new(),
        references: Vec::new(),
        failure: None,
        variables,
        strictness,
        limits,
    };
    pass.run()?;
    match pass.failure {
        Some(failure) => Err(failure),
        None => Ok(Evaluated {
            bytes: pass.out,
            substitutions: pass.substitutions,
        }),
    }
}

/// What the innermost open expression expects next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    /// Just after `${`.
    Start,
    /// The words of a default, up to `}`.
    DefaultWords,
    /// After the offset of `${var:offset`: `}` or colons and a length.
    AfterOffset,
    /// After the search of `${var/search`: slashes, then `}` or a replacement.
    AfterSearch,
    /// Only `}` may follow.
    Close,
}

/// An expression whose closing brace has not been read yet.
struct Frame {
    start: usize,
    name: String,
    operator: Operator,
    args: Vec<Vec<u8>>,
    next: Next,
}

/// Which escapes a run of text honours.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escapes {
    None,
    /// `$$`, `\\` and `\/` (the arguments of a replacement; plain text has its own loop).
    All,
}

/// Which tokens a scan may return, and what a run of text accepts (the character and the run's
/// length in bytes with it).
#[derive(Clone, Copy)]
struct Mode {
    open: bool,
    close: bool,
    run: Option<fn(char, usize) -> bool>,
    escapes: Escapes,
}

enum Token {
    End,
    Open(usize),
    Close,
    Run,
    Illegal,
}

struct Pass<'a> {
    text: &'a [u8],
    pos: usize,
    /// The text of the last `Token::Run`, escapes resolved.
    token: Vec<u8>,
    stack: Vec<Frame>,
    out: Vec<u8>,
    substitutions: Vec<Substitution>,
    /// The references of the outermost open expression so far.
    references: Vec<Reference>,
    failure: Option<SubstitutionError>,
    variables: &'a Variables,
    strictness: Strictness,
    limits: Limits,
}

impl<'a> Pass<'a> {
    fn run(&mut self) -> Result<(), SubstitutionError> {
        loop {
            if self.stack.is_empty() {
                if !self.plain_text() {
                    return Ok(());
                }
            } else {
                self.step()?;
            }
        }
    }

    /// Copies plain text to the output up to the next `${` (opened, true) or the end (false). A
    /// NUL character ends the text for upstream's scanner, which reads it as the end of input:
    /// nothing after it is read or written.
    fn plain_text(&mut self) -> bool {
        loop {
            let rest = &self.text[self.pos..];
            let Some(found) = memchr::memchr2(b'$', 0, rest) else {
                count_read(rest.len());
                self.out.extend_from_slice(rest);
                self.pos = self.text.len();
                return false;
            };
            count_read(found + 1);
            self.out.extend_from_slice(&rest[..found]);
            self.pos += found;
            if self.text[self.pos] == 0 {
                return false;
            }
            match self.text.get(self.pos + 1) {
                Some(b'{') => {
                    self.open(self.pos);
                    self.pos += 2;
                    return true;
                }
                Some(b'$') => {
                    self.out.push(b'$');
                    self.pos += 2;
                }
                _ => {
                    self.out.push(b'$');
                    self.pos += 1;
                }
            }
        }
    }

    fn open(&mut self, start: usize) {
        self.stack.push(Frame {
            start,
            name: String::new(),
            operator: Operator::Bare,
            args: Vec::new(),
            next: Next::Start,
        });
    }

    /// Moves the innermost open expression on by one token or one nested expression.
    fn step(&mut self) -> Result<(), SubstitutionError> {
        let next = self.stack.last().map_or(Next::Close, |frame| frame.next);
        match next {
            Next::Start => self.start(),
            Next::DefaultWords => {
                if self.peek() == Some('}') {
                    self.pos += 1;
                    self.complete();
                    Ok(())
                } else {
                    self.argument(not_closing, Escapes::None, Next::DefaultWords)
                }
            }
            Next::AfterOffset => {
                let mode = Mode {
                    open: false,
                    close: true,
                    run: Some(|character, _| character == ':'),
                    escapes: Escapes::None,
                };
                match self.scan(mode) {
                    Token::Close => {
                        self.complete();
                        Ok(())
                    }
                    Token::Run => self.argument(not_closing, Escapes::None, Next::Close),
                    _ => Err(self.syntax(SyntaxProblem::BadSubstitution)),
                }
            }
            Next::AfterSearch => {
                let mode = Mode {
                    open: false,
                    close: false,
                    run: Some(|character, _| character == '/'),
                    escapes: Escapes::None,
                };
                if !matches!(self.scan(mode), Token::Run) {
                    return Err(self.syntax(SyntaxProblem::BadSubstitution));
                }
                if self.peek() == Some('}') {
                    self.close()
                } else {
                    self.argument(not_closing, Escapes::All, Next::Close)
                }
            }
            Next::Close => self.close(),
        }
    }

    /// The name and operator of an expression, after `${`.
    fn start(&mut self) -> Result<(), SubstitutionError> {
        if self.peek() == Some('#') {
            self.pos += 1;
            let name = self
                .name()
                .ok_or_else(|| self.syntax(SyntaxProblem::BadSubstitution))?;
            self.set(name, Operator::Length, Next::Close);
            return self.close();
        }
        let name = self
            .name()
            .ok_or_else(|| self.syntax(SyntaxProblem::VariableName))?;
        match self.peek() {
            Some(':') => {
                // Upstream peeks at the character after the colon and steps back by that
                // character's width: past the end, or before a character wider than a byte, it
                // lands off the colon and reports a bad substitution.
                let after = self.char_at(self.pos + 1);
                match after {
                    Some('=' | '-' | '?' | '+') => {
                        self.pos += 2;
                        self.set(name, Operator::Default, Next::DefaultWords);
                        Ok(())
                    }
                    Some(character) if character.len_utf8() == 1 => {
                        self.pos += 1;
                        self.set(name, Operator::Substring, Next::AfterOffset);
                        self.argument(not_colon_or_closing, Escapes::None, Next::AfterOffset)
                    }
                    _ => Err(self.syntax(SyntaxProblem::BadSubstitution)),
                }
            }
            Some('=') => {
                self.pos += 1;
                self.set(name, Operator::Default, Next::DefaultWords);
                Ok(())
            }
            Some(',' | '^') => {
                let operator = match self.operator_run(|byte| matches!(byte, b',' | b'^'), 2) {
                    b"," => Operator::LowerFirst,
                    b",," => Operator::LowerAll,
                    b"^" => Operator::UpperFirst,
                    b"^^" => Operator::UpperAll,
                    _ => Operator::MixedCase,
                };
                self.set(name, operator, Next::Close);
                self.close()
            }
            Some('/') => {
                self.pos += 1;
                let operator = match self.text.get(self.pos) {
                    Some(b'/') => Operator::ReplaceAll,
                    Some(b'#') => Operator::ReplacePrefix,
                    Some(b'%') => Operator::ReplaceSuffix,
                    _ => Operator::ReplaceFirst,
                };
                if operator != Operator::ReplaceFirst {
                    self.pos += 1;
                }
                self.set(name, operator, Next::AfterSearch);
                self.argument(not_slash, Escapes::All, Next::AfterSearch)
            }
            Some(first @ ('#' | '%')) => {
                let doubled = self.operator_run(|byte| byte == first as u8, 2).len() == 2;
                let operator = match (first, doubled) {
                    ('#', false) => Operator::TrimShortestPrefix,
                    ('#', true) => Operator::TrimLongestPrefix,
                    (_, false) => Operator::TrimShortestSuffix,
                    (_, true) => Operator::TrimLongestSuffix,
                };
                self.set(name, operator, Next::Close);
                self.argument(not_closing, Escapes::None, Next::Close)
            }
            _ => {
                self.set(name, Operator::Bare, Next::Close);
                if self.peek() == Some('}') {
                    self.close()
                } else {
                    Err(self.syntax(SyntaxProblem::MissingClosingBrace))
                }
            }
        }
    }

    fn set(&mut self, name: String, operator: Operator, next: Next) {
        if let Some(frame) = self.stack.last_mut() {
            frame.name = name;
            frame.operator = operator;
            frame.next = next;
        }
    }

    /// A variable name: letters and digits (Unicode, as Go's `unicode.IsLetter`/`IsDigit`) and
    /// `_`.
    fn name(&mut self) -> Option<String> {
        let mode = Mode {
            open: false,
            close: false,
            run: Some(|character, _| is_name_character(character)),
            escapes: Escapes::None,
        };
        match self.scan(mode) {
            Token::Run => Some(String::from_utf8_lossy(&self.token).into_owned()),
            _ => None,
        }
    }

    /// Consumes up to `most` operator bytes that `accept` takes.
    fn operator_run(&mut self, accept: impl Fn(u8) -> bool, most: usize) -> &'a [u8] {
        let text = self.text;
        let start = self.pos;
        while self.pos - start < most && text.get(self.pos).is_some_and(|&byte| accept(byte)) {
            self.pos += 1;
        }
        &text[start..self.pos]
    }

    /// One argument: a nested expression, or a run of text that `accept` takes. The current
    /// expression expects `then` once the argument is in.
    fn argument(
        &mut self,
        accept: fn(char, usize) -> bool,
        escapes: Escapes,
        then: Next,
    ) -> Result<(), SubstitutionError> {
        if let Some(frame) = self.stack.last_mut() {
            frame.next = then;
        }
        let mode = Mode {
            open: true,
            close: false,
            run: Some(accept),
            escapes,
        };
        match self.scan(mode) {
            Token::Open(start) => {
                self.open(start);
                Ok(())
            }
            Token::Run => {
                let text = std::mem::take(&mut self.token);
                if let Some(frame) = self.stack.last_mut() {
                    frame.args.push(text);
                }
                Ok(())
            }
            _ => Err(self.syntax(SyntaxProblem::FunctionArgument)),
        }
    }

    /// Reads the closing brace of the innermost expression and evaluates it.
    fn close(&mut self) -> Result<(), SubstitutionError> {
        if self.peek() == Some('}') {
            self.pos += 1;
            self.complete();
            Ok(())
        } else {
            Err(self.syntax(SyntaxProblem::BadSubstitution))
        }
    }

    /// Evaluates the innermost expression, just closed, and hands its value to the enclosing one
    /// or to the output.
    fn complete(&mut self) {
        let Some(frame) = self.stack.pop() else {
            return;
        };
        let span = frame.start..self.pos;
        let value = self.variables.get(&frame.name);
        self.references.push(Reference {
            name: frame.name.clone(),
            span: span.clone(),
            set: value.is_some(),
        });
        let result = if self.failure.is_some() {
            Vec::new()
        } else {
            match self.apply(&frame, value, span.clone()) {
                Ok(result) => result,
                Err(failure) => {
                    self.failure = Some(failure);
                    Vec::new()
                }
            }
        };
        if let Some(parent) = self.stack.last_mut() {
            parent.args.push(result);
            return;
        }
        let output_start = self.out.len();
        self.out.extend_from_slice(&result);
        self.substitutions.push(Substitution {
            span,
            output: output_start..self.out.len(),
            references: std::mem::take(&mut self.references),
        });
    }

    fn apply(
        &mut self,
        frame: &Frame,
        value: Option<&str>,
        span: Range<usize>,
    ) -> Result<Vec<u8>, SubstitutionError> {
        let fails = match self.strictness {
            Strictness::Off => false,
            Strictness::BareOnly => frame.operator == Operator::Bare,
            Strictness::Full => !frame.operator.supplies_default(),
        };
        if value.is_none() && fails {
            return Err(SubstitutionError::VariableNotSet {
                name: frame.name.clone(),
                span,
            });
        }
        funcs::apply(
            frame.operator,
            value.unwrap_or_default(),
            &frame.args,
            &mut self.limits,
        )
        .map_err(|fault| match fault {
            Fault::SlicePanic(detail) => SubstitutionError::NegativeLength { detail, span },
            Fault::TooLarge => SubstitutionError::OutputTooLarge { span },
            Fault::TooExpensive => SubstitutionError::PatternTooExpensive { span },
        })
    }

    /// A syntax error in the innermost open expression, spanning from its `${` to the character
    /// that could not be read.
    fn syntax(&self, problem: SyntaxProblem) -> SubstitutionError {
        let start = self.stack.last().map_or(self.pos, |frame| frame.start);
        let width = self.char_at(self.pos).map_or(0, char::len_utf8);
        SubstitutionError::Syntax {
            problem,
            span: start..self.pos + width,
        }
    }

    /// The character at the current position; NUL reads as the end, as upstream's scanner
    /// returns its end-of-input rune for it.
    fn peek(&self) -> Option<char> {
        self.char_at(self.pos)
            .filter(|&character| character != '\0')
    }

    fn char_at(&self, at: usize) -> Option<char> {
        count_read(1);
        let rest = self.text.get(at..)?;
        let head = &rest[..rest.len().min(4)];
        let valid = match std::str::from_utf8(head) {
            Ok(text) => text,
            Err(error) => std::str::from_utf8(&head[..error.valid_up_to()]).unwrap_or_default(),
        };
        valid.chars().next()
    }

    /// Upstream's scanner: at `${` (when `open`) an opening, at `}` (when `close`) a closing,
    /// else a run of characters that `run` accepts, escapes resolved into `token`, which stops
    /// before `${` (when `open`), the end, NUL or the first character not accepted. A first
    /// character not accepted is illegal.
    fn scan(&mut self, mode: Mode) -> Token {
        self.token.clear();
        let Some(first) = self.peek() else {
            return Token::End;
        };
        if mode.open && self.text[self.pos..].starts_with(b"${") {
            let start = self.pos;
            self.pos += 2;
            return Token::Open(start);
        }
        if mode.close && first == '}' {
            self.pos += 1;
            return Token::Close;
        }
        let Some(accept) = mode.run else {
            return Token::Illegal;
        };
        let mut character = first;
        loop {
            if let Some(escaped) = self.escaped(mode.escapes) {
                self.token.push(escaped);
                self.pos += 2;
            } else if accept(character, self.token.len() + character.len_utf8()) {
                let mut buffer = [0; 4];
                self.token
                    .extend_from_slice(character.encode_utf8(&mut buffer).as_bytes());
                self.pos += character.len_utf8();
            } else if self.token.is_empty() {
                return Token::Illegal;
            } else {
                return Token::Run;
            }
            match self.peek() {
                Some(_) if mode.open && self.text[self.pos..].starts_with(b"${") => {
                    return Token::Run;
                }
                Some(next) => character = next,
                None => return Token::Run,
            }
        }
    }

    /// The character an escape at the current position stands for, if there is one.
    fn escaped(&self, escapes: Escapes) -> Option<u8> {
        let pair = self.text.get(self.pos..self.pos + 2)?;
        match (escapes, pair) {
            (Escapes::All, b"$$") => Some(b'$'),
            (Escapes::All, b"\\\\") => Some(b'\\'),
            (Escapes::All, b"\\/") => Some(b'/'),
            _ => None,
        }
    }
}

fn not_closing(character: char, _: usize) -> bool {
    character != '}'
}

fn not_colon_or_closing(character: char, _: usize) -> bool {
    character != ':' && character != '}'
}

fn not_slash(character: char, _: usize) -> bool {
    character != '/'
}

/// Go's `unicode.IsLetter` or `unicode.IsDigit`, or `_`.
fn is_name_character(character: char) -> bool {
    use unicode_general_category::{GeneralCategory, get_general_category};
    if character.is_ascii() {
        return character.is_ascii_alphanumeric() || character == '_';
    }
    matches!(
        get_general_category(character),
        GeneralCategory::UppercaseLetter
            | GeneralCategory::LowercaseLetter
            | GeneralCategory::TitlecaseLetter
            | GeneralCategory::ModifierLetter
            | GeneralCategory::OtherLetter
            | GeneralCategory::DecimalNumber
    )
}

#[cfg(test)]
thread_local! {
    /// Bytes of the text searched and characters decoded on this thread: tests bound a
    /// substitution's cost with it, which does not depend on the machine's load as a time does.
    pub(super) static READ: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[inline]
fn count_read(count: usize) {
    #[cfg(test)]
    READ.with(|read| read.set(read.get() + count as u64));
    #[cfg(not(test))]
    let _ = count;
}
