//! Kubernetes resource quantities, as `k8s.io/apimachinery/pkg/api/resource.Quantity` parses,
//! prints, rounds and compares them.
//!
//! Rendered output has to match what `KubeVirt` writes byte for byte, so the Go behaviour is
//! reproduced including its oddities:
//!
//! * An input that Go's fast parser considers canonical is kept verbatim as the string form,
//!   even when it is not quite canonical: `+1Gi`, `01Ki`, `5.`, `1.G`, `1E3` and `1.500` all
//!   print as written, while `1.5` prints as `1500m`.
//! * Magnitudes finer than a nano are rounded away from zero to whole nanos.
//! * Binary quantities are capped at 2^63 - 1 in magnitude; decimal ones are not capped.
//! * Decimal SI has no suffix beyond `E`, and Go then prints the mantissa alone: `1000E` prints
//!   as `1`.
//! * [`Quantity::value`] rounds a positive fraction up. A negative fraction is rounded away
//!   from zero when Go holds the quantity as a scaled int64 (`-1.5` gives -2), but truncated
//!   and then incremented when Go holds it as an `inf.Dec`, as it does for inputs of more
//!   than 18 digits or finer than a nano (`-1.0000000001` gives 0, `-0.0000000001` gives 1).
//!
//! Go stores arbitrary-precision decimals; this module keeps at most 38 significant digits
//! and a decimal exponent within ±2^30, and reports [`QuantityError::OutOfRange`] beyond that.

use std::cmp::Ordering;
use std::fmt;

use serde_json::{Number, Value};

use crate::model::value::present_at;

/// How a quantity prints; it is fixed by the suffix it was parsed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Format {
    /// Powers of 1024: `Ki`, `Mi`, `Gi`, `Ti`, `Pi`, `Ei`.
    BinarySI,
    /// Powers of 1000: `n`, `u`, `m`, none, `k`, `M`, `G`, `T`, `P`, `E`.
    DecimalSI,
    /// `<mantissa>e<exponent>`, the exponent a multiple of 3.
    DecimalExponent,
}

/// Why a text is not a quantity. The first three carry Go's messages.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum QuantityError {
    #[error(
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )]
    FormatWrong,
    #[error("unable to parse numeric part of quantity")]
    Numeric,
    #[error("unable to parse quantity's suffix")]
    Suffix,
    /// Valid for Go, but beyond the precision or exponent range kept here.
    #[error(
        "quantity is out of the supported range (at most 38 significant digits and a decimal exponent within ±2^30)"
    )]
    OutOfRange,
    /// JSON `null`. Go leaves a `*Quantity` field nil for it, and a `Quantity` value (such as
    /// a map entry) zero, printed `0`; which one applies is up to the caller.
    #[error("quantity is null")]
    Null,
}

/// Which of Go's two internal representations the quantity would have: a scaled int64
/// (from the fast parser and from `NewQuantity`) or an `inf.Dec`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Repr {
    Int64,
    Decimal,
}

/// A fixed-point quantity, equal to `mantissa × 10^exponent`.
#[derive(Clone, Debug)]
pub(crate) struct Quantity {
    /// Without trailing zero digits; zero is stored as `0 × 10^0`.
    mantissa: i128,
    exponent: i64,
    format: Format,
    repr: Repr,
    /// The text Go keeps as the string form, when it keeps one.
    text: Option<String>,
}

const MAX_DIGITS: usize = 38;
const MAX_EXPONENT: u32 = 1 << 30;
/// Values are rounded to this decimal exponent (nanos).
const NANO: i64 = -9;
/// The most digits Go's fast parser takes for a decimal number.
const FAST_DIGITS: usize = 18;
/// The largest binary quantity, 2^63 - 1.
const MAX_BINARY: &[u8] = b"9223372036854775807";
const BINARY_SUFFIXES: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

impl Quantity {
    fn new(
        mantissa: i128,
        exponent: i64,
        format: Format,
        repr: Repr,
        text: Option<String>,
    ) -> Self {
        let (mut mantissa, mut exponent) = (mantissa, exponent);
        if mantissa == 0 {
            exponent = 0;
        }
        while mantissa != 0 && mantissa % 10 == 0 {
            mantissa /= 10;
            exponent += 1;
        }
        Quantity {
            mantissa,
            exponent,
            format,
            repr,
            text,
        }
    }

    /// Parses a quantity as Go's `resource.ParseQuantity` does.
    pub(crate) fn parse(text: &str) -> Result<Quantity, QuantityError> {
        if text.is_empty() {
            return Err(QuantityError::FormatWrong);
        }
        if text == "0" {
            return Ok(Quantity::new(
                0,
                0,
                Format::DecimalSI,
                Repr::Int64,
                Some(text.to_owned()),
            ));
        }
        let parts = Parts::scan(text.as_bytes())?;
        let (exponent, format) = interpret_suffix(parts.suffix).ok_or(QuantityError::Suffix)?;
        if exponent.unsigned_abs() > MAX_EXPONENT {
            return Err(QuantityError::OutOfRange);
        }
        if let Some(quantity) = parse_fast(text, &parts, exponent, format) {
            return Ok(quantity);
        }
        parse_slow(&parts, exponent, format)
    }

    /// Reads a quantity from JSON as Go's `Quantity.UnmarshalJSON` does: a string, or a
    /// number taken by its text.
    ///
    /// Go sees a number's text as written; this sees the value, so a number is written back
    /// the way Go's `encoding/json` writes a float64 or an integer, which is the text Go gets
    /// when YAML is converted to JSON. Text such as `1e3` in JSON typed by hand gives `1e3`
    /// in Go and `1k` here. The number has to hold the float64 Go would read: `serde_json`
    /// parses floats exactly only with its `float_roundtrip` feature.
    pub(crate) fn from_json(value: &Value) -> Result<Quantity, QuantityError> {
        match value {
            Value::String(text) => Quantity::parse(text.trim_matches(is_trimmed_space)),
            Value::Number(number) => Quantity::parse(&go_number_text(number)),
            Value::Null => Err(QuantityError::Null),
            Value::Bool(_) | Value::Array(_) | Value::Object(_) => Err(QuantityError::FormatWrong),
        }
    }

    /// The quantity under the object keys `path`; `None` when it is absent, null (Go's nil)
    /// or not a quantity.
    pub(crate) fn at(value: &Value, path: &[&str]) -> Option<Quantity> {
        present_at(value, path).and_then(|v| Quantity::from_json(v).ok())
    }

    /// Go's `resource.NewQuantity(value, format)`.
    pub(crate) fn from_i64(value: i64, format: Format) -> Quantity {
        Quantity::new(i128::from(value), 0, format, Repr::Int64, None)
    }

    pub(crate) fn format(&self) -> Format {
        self.format
    }

    /// The string form, as Go's `Quantity.String()`.
    pub(crate) fn canonical(&self) -> String {
        if let Some(text) = &self.text {
            return text.clone();
        }
        if self.mantissa == 0 {
            return "0".to_owned();
        }
        match self.format {
            Format::BinarySI => self
                .binary_form()
                .unwrap_or_else(|| self.decimal_form(Format::DecimalSI)),
            format => self.decimal_form(format),
        }
    }

    /// The value as a whole number, as Go's `Quantity.Value()`: fractions are rounded up,
    /// negative ones as described in the module documentation. Values beyond the `i64` range
    /// saturate, where Go returns 0 or wraps around; so do negative `inf.Dec` values beyond
    /// about 9.2e9 in magnitude, which overflow inside Go's `Value()` and get the correct
    /// rounding here.
    pub(crate) fn value(&self) -> i64 {
        let saturated = if self.mantissa < 0 {
            i64::MIN
        } else {
            i64::MAX
        };
        if self.exponent >= 0 {
            return self
                .whole()
                .and_then(|whole| i64::try_from(whole).ok())
                .unwrap_or(saturated);
        }
        let divisor = u32::try_from(-self.exponent)
            .ok()
            .and_then(|places| 10_i128.checked_pow(places));
        let (quotient, exact) = match divisor {
            Some(divisor) => (self.mantissa / divisor, self.mantissa % divisor == 0),
            None => (0, false),
        };
        let rounded = if exact {
            quotient
        } else if self.mantissa < 0 && self.repr == Repr::Int64 {
            quotient - 1
        } else {
            // Go's inf.Dec path adds one to the truncated quotient whatever the sign.
            quotient + 1
        };
        i64::try_from(rounded).unwrap_or(saturated)
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.mantissa == 0
    }

    /// Numeric comparison, as Go's `Quantity.Cmp`; the format plays no part.
    pub(crate) fn cmp_value(&self, other: &Quantity) -> Ordering {
        let signs = self.mantissa.signum().cmp(&other.mantissa.signum());
        if signs != Ordering::Equal || self.mantissa == 0 {
            return signs;
        }
        let magnitude = compare_digits(
            self.mantissa.unsigned_abs().to_string().as_bytes(),
            self.exponent,
            other.mantissa.unsigned_abs().to_string().as_bytes(),
            other.exponent,
        );
        if self.mantissa > 0 {
            magnitude
        } else {
            magnitude.reverse()
        }
    }

    /// The value when it is a whole number that fits an `i128`.
    fn whole(&self) -> Option<i128> {
        let places = u32::try_from(self.exponent).ok()?;
        10_i128.checked_pow(places)?.checked_mul(self.mantissa)
    }

    /// `<mantissa><binary suffix>`, or `None` where Go falls back to decimal SI: for
    /// magnitudes below 1024 and for fractions.
    fn binary_form(&self) -> Option<String> {
        // Binary quantities never exceed the i64 range, so `whole` only fails for fractions.
        let whole = self.whole()?;
        if whole.unsigned_abs() < 1024 {
            return None;
        }
        if self.repr == Repr::Int64 && whole == i128::from(i64::MIN) {
            // Go's int64 path negates before dividing, which overflows for -2^63 and leaves
            // the number undivided.
            return Some(whole.to_string());
        }
        let mut mantissa = whole;
        let mut power = 0;
        while mantissa.unsigned_abs() >= 1024 && mantissa % 1024 == 0 {
            mantissa /= 1024;
            power += 1;
        }
        let suffix = BINARY_SUFFIXES.get(power).copied().unwrap_or_default();
        Some(format!("{mantissa}{suffix}"))
    }

    /// `<mantissa><suffix>` with the exponent lowered to a multiple of 3.
    fn decimal_form(&self, format: Format) -> String {
        let padding = self.exponent.rem_euclid(3);
        let exponent = self.exponent - padding;
        let mut out = self.mantissa.to_string();
        for _ in 0..padding {
            out.push('0');
        }
        match format {
            Format::DecimalExponent if exponent != 0 => {
                out.push('e');
                out.push_str(&exponent.to_string());
            }
            Format::DecimalExponent => {}
            Format::DecimalSI | Format::BinarySI => out.push_str(decimal_si_suffix(exponent)),
        }
        out
    }
}

/// Numeric equality and the same format.
impl PartialEq for Quantity {
    fn eq(&self, other: &Quantity) -> bool {
        self.format == other.format && self.cmp_value(other) == Ordering::Equal
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical())
    }
}

/// The string form of a JSON quantity, when it is one.
pub(crate) fn canonical_json(value: &Value) -> Option<String> {
    Quantity::from_json(value)
        .ok()
        .map(|quantity| quantity.canonical())
}

/// The memory request `KubeVirt` derives from an instance type's guest memory and
/// `overcommitPercent`: `int64(float32(guest.Value()) * (1 - float32(percent)/100))`, in the
/// guest's format. Each step rounds to `f32` as Go's does. A result beyond the `i64` range
/// saturates, as Go on arm64; Go on amd64 gives -2^63 instead.
#[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
pub(crate) fn overcommitted(guest: &Quantity, percent: i64) -> Quantity {
    let requested = (guest.value() as f32 * (1.0_f32 - percent as f32 / 100.0_f32)) as i64;
    Quantity::from_i64(requested, guest.format())
}

/// A quantity text split the way Go's scanner splits it.
struct Parts<'a> {
    negative: bool,
    /// Integer digits without leading zeros, or `0` when none are left.
    whole: &'a [u8],
    fraction: &'a [u8],
    suffix: &'a [u8],
    /// Whether the number as written has a digit at all: `-`, `.` and the empty number
    /// have none, which Go's fast parser reads as 0 and its slow parser rejects.
    has_digit: bool,
}

impl<'a> Parts<'a> {
    fn scan(text: &'a [u8]) -> Result<Parts<'a>, QuantityError> {
        let mut pos = 0;
        let negative = text.first() == Some(&b'-');
        if matches!(text.first(), Some(b'-' | b'+')) {
            pos = 1;
        }
        let zeros = count_while(text, pos, |b| b == b'0');
        pos += zeros;
        if pos == text.len() {
            return Ok(Parts {
                negative,
                whole: b"0",
                fraction: b"",
                suffix: b"",
                has_digit: true,
            });
        }
        let whole_len = count_while(text, pos, |b| b.is_ascii_digit());
        let whole = match slice(text, pos, pos + whole_len) {
            b"" => b"0",
            digits => digits,
        };
        pos += whole_len;
        let mut fraction: &[u8] = b"";
        if text.get(pos) == Some(&b'.') {
            pos += 1;
            let fraction_len = count_while(text, pos, |b| b.is_ascii_digit());
            fraction = slice(text, pos, pos + fraction_len);
            pos += fraction_len;
        }
        let has_digit = zeros > 0 || whole_len > 0 || !fraction.is_empty();
        // Letters, then an optional sign and digits for an exponent.
        let suffix_start = pos;
        pos += count_while(text, pos, |b| b"eEinumkKMGTP".contains(&b));
        if pos < text.len() {
            if matches!(text.get(pos), Some(b'-' | b'+')) {
                pos += 1;
            }
            pos += count_while(text, pos, |b| b.is_ascii_digit());
            if pos < text.len() {
                return Err(QuantityError::FormatWrong);
            }
        }
        Ok(Parts {
            negative,
            whole,
            fraction,
            suffix: slice(text, suffix_start, text.len()),
            has_digit,
        })
    }
}

fn count_while(text: &[u8], from: usize, accept: impl Fn(u8) -> bool) -> usize {
    text.get(from..)
        .map_or(0, |rest| rest.iter().take_while(|&&b| accept(b)).count())
}

fn slice(text: &[u8], from: usize, to: usize) -> &[u8] {
    text.get(from..to).unwrap_or_default()
}

/// The exponent (of 10, or of 2 for binary) and format a suffix stands for.
fn interpret_suffix(suffix: &[u8]) -> Option<(i32, Format)> {
    let decimal = |exponent| Some((exponent, Format::DecimalSI));
    let binary = |exponent| Some((exponent, Format::BinarySI));
    match suffix {
        b"n" => decimal(-9),
        b"u" => decimal(-6),
        b"m" => decimal(-3),
        b"" => decimal(0),
        b"k" => decimal(3),
        b"M" => decimal(6),
        b"G" => decimal(9),
        b"T" => decimal(12),
        b"P" => decimal(15),
        b"E" => decimal(18),
        b"Ki" => binary(10),
        b"Mi" => binary(20),
        b"Gi" => binary(30),
        b"Ti" => binary(40),
        b"Pi" => binary(50),
        b"Ei" => binary(60),
        [b'e' | b'E', exponent @ ..] => {
            Some((go_int32(parse_go_int64(exponent)?), Format::DecimalExponent))
        }
        _ => None,
    }
}

/// Go's `strconv.ParseInt(text, 10, 64)`.
fn parse_go_int64(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text {
        [b'-', digits @ ..] => (true, digits),
        [b'+', digits @ ..] | digits => (false, digits),
    };
    if digits.is_empty() {
        return None;
    }
    let mut magnitude: i128 = 0;
    for &digit in digits {
        if !digit.is_ascii_digit() {
            return None;
        }
        magnitude = magnitude
            .checked_mul(10)?
            .checked_add(i128::from(digit - b'0'))?;
    }
    i64::try_from(if negative { -magnitude } else { magnitude }).ok()
}

/// Go's `int32(value)`, which keeps the low 32 bits.
#[allow(clippy::cast_possible_truncation)]
fn go_int32(value: i64) -> i32 {
    value as i32
}

/// Go's fast parser: numbers of few enough digits that land on whole nanos, kept as a scaled
/// int64. `None` where Go goes on to its slow parser.
fn parse_fast(text: &str, parts: &Parts<'_>, exponent: i32, format: Format) -> Option<Quantity> {
    let (scale, shift) = if format == Format::BinarySI {
        // Go takes whole numbers only, up to a digit budget estimated from 2^exponent having
        // about exponent*3/10 decimal digits.
        let budget = 14 - i64::from(exponent) * 3 / 10;
        if !parts.fraction.is_empty() || to_i64(parts.whole.len()) > budget {
            return None;
        }
        (0, u32::try_from(exponent).ok()?)
    } else {
        if parts.whole.len() + parts.fraction.len() > FAST_DIGITS {
            return None;
        }
        (i64::from(exponent) - to_i64(parts.fraction.len()), 0)
    };
    if scale < NANO {
        return None;
    }
    let digits = [parts.whole, parts.fraction].concat();
    let unscaled = parse_digits(&digits)?;
    let magnitude = i64::try_from(unscaled)
        .ok()?
        .checked_mul(1_i64.checked_shl(shift)?)?;
    let value = if parts.negative {
        -magnitude
    } else {
        magnitude
    };
    let kept_as_written = if format == Format::BinarySI {
        unscaled % 8 != 0
    } else {
        scale % 3 == 0 && !digits.ends_with(b"000") && digits.first() != Some(&b'0')
    };
    Some(Quantity::new(
        i128::from(value),
        scale,
        format,
        Repr::Int64,
        kept_as_written.then(|| text.to_owned()),
    ))
}

/// Go's slow parser: exact decimal arithmetic, rounding away from zero to whole nanos, and
/// capping binary quantities.
fn parse_slow(parts: &Parts<'_>, exponent: i32, format: Format) -> Result<Quantity, QuantityError> {
    if !parts.has_digit {
        return Err(QuantityError::Numeric);
    }
    // Decimal digits, least significant first.
    let mut digits: Vec<u8> = parts
        .whole
        .iter()
        .chain(parts.fraction)
        .rev()
        .map(|&b| b - b'0')
        .collect();
    let mut scale = -to_i64(parts.fraction.len());
    if format == Format::BinarySI {
        let mut remaining = exponent.unsigned_abs();
        while remaining > 0 {
            let step = remaining.min(30);
            multiply(&mut digits, 1 << step);
            remaining -= step;
        }
    } else {
        scale += i64::from(exponent);
    }
    if scale < NANO {
        let dropped = usize::try_from(NANO - scale)
            .unwrap_or(usize::MAX)
            .min(digits.len());
        let inexact = digits.iter().take(dropped).any(|&digit| digit != 0);
        digits.drain(..dropped);
        if inexact {
            increment(&mut digits);
        }
        scale = NANO;
    }
    let trailing_zeros = digits.iter().take_while(|&&digit| digit == 0).count();
    if trailing_zeros == digits.len() {
        return Ok(Quantity::new(0, 0, format, Repr::Decimal, None));
    }
    digits.drain(..trailing_zeros);
    scale += to_i64(trailing_zeros);
    while digits.last() == Some(&0) {
        digits.pop();
    }
    let mut ascii: Vec<u8> = digits.iter().rev().map(|&digit| b'0' + digit).collect();
    let mut format = format;
    if format == Format::BinarySI {
        if compare_digits(&ascii, scale, MAX_BINARY, 0) == Ordering::Greater {
            ascii = MAX_BINARY.to_vec();
            scale = 0;
        } else if to_i64(ascii.len()) + scale <= 0 {
            // A magnitude below 1 cannot be printed in binary.
            format = Format::DecimalSI;
        }
    }
    if ascii.len() > MAX_DIGITS {
        return Err(QuantityError::OutOfRange);
    }
    let magnitude = parse_digits(&ascii).ok_or(QuantityError::OutOfRange)?;
    let mantissa = if parts.negative {
        -magnitude
    } else {
        magnitude
    };
    Ok(Quantity::new(mantissa, scale, format, Repr::Decimal, None))
}

/// ASCII digits as a number, `None` if it does not fit.
fn parse_digits(digits: &[u8]) -> Option<i128> {
    digits.iter().try_fold(0_i128, |value, &digit| {
        value
            .checked_mul(10)?
            .checked_add(i128::from(digit.checked_sub(b'0')?))
    })
}

/// Multiplies least-significant-first decimal digits by `factor` (at most 2^30).
fn multiply(digits: &mut Vec<u8>, factor: u64) {
    let mut carry = 0_u64;
    for digit in digits.iter_mut() {
        let product = u64::from(*digit) * factor + carry;
        *digit = last_digit(product);
        carry = product / 10;
    }
    while carry > 0 {
        digits.push(last_digit(carry));
        carry /= 10;
    }
}

fn last_digit(value: u64) -> u8 {
    // Below 10, so nothing is lost.
    #[allow(clippy::cast_possible_truncation)]
    let digit = (value % 10) as u8;
    digit
}

/// Adds one to least-significant-first decimal digits.
fn increment(digits: &mut Vec<u8>) {
    for digit in digits.iter_mut() {
        if *digit == 9 {
            *digit = 0;
        } else {
            *digit += 1;
            return;
        }
    }
    digits.push(1);
}

/// Compares `a × 10^a_exponent` with `b × 10^b_exponent` for ASCII digits without leading or
/// trailing zeros. Aligned at their leading digits, the digit strings then compare as text.
fn compare_digits(a: &[u8], a_exponent: i64, b: &[u8], b_exponent: i64) -> Ordering {
    (to_i64(a.len()) + a_exponent)
        .cmp(&(to_i64(b.len()) + b_exponent))
        .then_with(|| a.cmp(b))
}

fn to_i64(length: usize) -> i64 {
    i64::try_from(length).unwrap_or(i64::MAX)
}

/// The decimal SI suffix for an exponent that is a multiple of 3; Go prints none beyond `E`.
fn decimal_si_suffix(exponent: i64) -> &'static str {
    match exponent {
        -9 => "n",
        -6 => "u",
        -3 => "m",
        3 => "k",
        6 => "M",
        9 => "G",
        12 => "T",
        15 => "P",
        18 => "E",
        _ => "",
    }
}

/// Go's `strings.TrimSpace` as it applies inside a JSON string: the white space a JSON
/// encoder escapes (ASCII controls, U+2028, U+2029) reaches Go as escapes, which it does not
/// trim and which then fail to parse.
fn is_trimmed_space(c: char) -> bool {
    c.is_whitespace() && !c.is_ascii_control() && !matches!(c, '\u{2028}' | '\u{2029}')
}

/// The text Go's `encoding/json` writes for a number: an int64 as it is, a float64 in the
/// shortest form that reads back, with an exponent (`1e+21`, `1e-7`) outside [1e-6, 1e21).
fn go_number_text(number: &Number) -> String {
    if let Some(value) = number.as_i64() {
        return value.to_string();
    }
    // Kubernetes clients read JSON numbers as int64 or else float64, so a larger integer
    // arrives as a float too.
    let Some(value) = number.as_f64() else {
        return number.to_string();
    };
    let sign = if value.is_sign_negative() { "-" } else { "" };
    let magnitude = value.abs();
    let (digits, exponent) = shortest_digits(magnitude);
    if magnitude > 0.0 && !(1e-6..1e21).contains(&magnitude) {
        let first = digits.get(..1).unwrap_or_default();
        let rest = digits.get(1..).unwrap_or_default();
        let point = if rest.is_empty() { "" } else { "." };
        return if exponent < 0 {
            format!("{sign}{first}{point}{rest}e-{}", -exponent)
        } else {
            format!("{sign}{first}{point}{rest}e+{exponent:02}")
        };
    }
    let length = to_i64(digits.len());
    if exponent >= length - 1 {
        let zeros = "0".repeat(usize::try_from(exponent - length + 1).unwrap_or_default());
        format!("{sign}{digits}{zeros}")
    } else if exponent >= 0 {
        let split = usize::try_from(exponent + 1).unwrap_or_default();
        let whole = digits.get(..split).unwrap_or_default();
        let fraction = digits.get(split..).unwrap_or_default();
        format!("{sign}{whole}.{fraction}")
    } else {
        let zeros = "0".repeat(usize::try_from(-exponent - 1).unwrap_or_default());
        format!("{sign}0.{zeros}{digits}")
    }
}

/// The fewest significant digits that read back as `magnitude`, and the decimal exponent of
/// the first one. Where two candidates are equally near, Go takes the even one and Rust's
/// shortest formatting the upper one, so the candidate rounded half to even is preferred
/// whenever it reads back.
fn shortest_digits(magnitude: f64) -> (String, i64) {
    let shortest = format!("{magnitude:e}");
    let significant = shortest
        .bytes()
        .take_while(|&b| b != b'e')
        .filter(u8::is_ascii_digit)
        .count();
    let precision = significant.saturating_sub(1);
    let even = format!("{magnitude:.precision$e}");
    let reads_back = even.parse::<f64>().map(f64::to_bits) == Ok(magnitude.to_bits());
    let chosen = if reads_back { even } else { shortest };
    let (mantissa, exponent) = chosen.split_once('e').unwrap_or((chosen.as_str(), "0"));
    (
        mantissa.replace('.', ""),
        exponent.parse().unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn canonical(text: &str) -> String {
        match Quantity::parse(text) {
            Ok(quantity) => quantity.canonical(),
            Err(error) => format!("error: {error}"),
        }
    }

    fn quantity(text: &str) -> Quantity {
        Quantity::parse(text).unwrap_or_else(|error| panic!("{text:?}: {error}"))
    }

    fn assert_canonical(cases: &[(&str, &str)]) {
        for (input, expected) in cases {
            assert_eq!(canonical(input), *expected, "input {input:?}");
        }
    }

    #[test]
    fn canonical_forms() {
        assert_canonical(&[
            ("1.5", "1500m"),
            ("0.1", "100m"),
            ("0.0001", "100u"),
            ("3000m", "3"),
            ("1000k", "1M"),
            ("2000M", "2G"),
            ("1.5G", "1500M"),
            ("1e3", "1e3"),
            ("12e6", "12e6"),
            ("0.5Gi", "512Mi"),
            ("2048Ki", "2Mi"),
            ("1048576Ki", "1Gi"),
            ("1024Mi", "1Gi"),
            ("1200Mi", "1200Mi"),
            ("1536Mi", "1536Mi"),
            ("30000Mi", "30000Mi"),
            ("0.5Ki", "512"),
            ("1000000000", "1G"),
            ("0", "0"),
            ("1.5Gi", "1536Mi"),
            ("2048Mi", "2Gi"),
        ]);
    }

    #[test]
    fn more_canonical_forms() {
        assert_canonical(&[
            ("1Ki", "1Ki"),
            ("1023Ki", "1023Ki"),
            ("1025Ki", "1025Ki"),
            ("1.5Ki", "1536"),
            ("100.035Ki", "102435840m"),
            ("0.05Gi", "53687091200m"),
            ("1000M", "1G"),
            ("1E", "1E"),
            ("1000P", "1E"),
            ("12E", "12E"),
            ("8.1k", "8100"),
            ("6.987654321G", "6.987654321G"),
            ("6.9876543210G", "6987654321"),
            ("1e2", "100"),
            ("1e4", "10e3"),
            ("1e-3", "1e-3"),
            ("0.5e-1", "50e-3"),
            ("1.2e3", "1200"),
            ("1000e0", "1e3"),
            ("1e0", "1e0"),
            ("100e-2", "1"),
            (".001Ki", "1024m"),
            (".000001Ki", "1024u"),
            (".000000001Ki", "1024n"),
            ("1000000000000000000", "1E"),
            ("10000000000000000000", "10E"),
            ("9999999999999999999", "9999999999999999999"),
            ("9999999999999999999.1", "9999999999999999999100m"),
            ("1.0000000000000000001E", "1000000000000000000100m"),
        ]);
    }

    #[test]
    fn rounds_up_to_whole_nanos() {
        assert_canonical(&[
            ("0.0000000001", "1n"),
            ("0.0000000005", "1n"),
            ("0.00000000050", "1n"),
            ("3.001n", "4n"),
            ("0.9n", "1n"),
            ("0.00000012345", "124n"),
            ("1.1E-9", "2e-9"),
            ("0.5e-9", "1e-9"),
            ("1e-10", "1e-9"),
            ("-0.0000000001", "-1n"),
            ("-3.001n", "-4n"),
            (".000000000001Ki", "2n"),
            ("0.000000000000000000000000000000000000000000001", "1n"),
            ("0.99999999999", "1"),
        ]);
        assert_eq!(quantity(".000000000001Ki").format(), Format::DecimalSI);
        assert_eq!(quantity("0.0001Ki").format(), Format::DecimalSI);
        assert_eq!(quantity("0.5Ki").format(), Format::BinarySI);
    }

    #[test]
    fn negative_and_signed_values() {
        assert_canonical(&[
            ("-2Gi", "-2Gi"),
            ("-2048Mi", "-2Gi"),
            ("-1.5Gi", "-1536Mi"),
            ("-1.5", "-1500m"),
            ("-1000k", "-1M"),
            ("-0", "0"),
            ("-0Ki", "0"),
            ("+0", "0"),
            ("+1024Mi", "1Gi"),
            ("+1.5", "1500m"),
        ]);
        assert_eq!(quantity("-2Gi").value(), -2_147_483_648);
        assert_eq!(quantity("-0").format(), Format::DecimalSI);
        assert_eq!(quantity("-0Ki").format(), Format::BinarySI);
    }

    #[test]
    fn inputs_go_keeps_verbatim() {
        assert_canonical(&[
            ("+1Gi", "+1Gi"),
            ("+1", "+1"),
            ("01Ki", "01Ki"),
            ("0100", "0100"),
            ("5.", "5."),
            ("1.G", "1.G"),
            ("1.Gi", "1.Gi"),
            ("1E3", "1E3"),
            ("1e+3", "1e+3"),
            ("1e03", "1e03"),
            ("1.500", "1.500"),
            ("100.035k", "100.035k"),
            ("-999999999999999999", "-999999999999999999"),
            // Divisible by 8, so Go recomputes the string.
            ("8Ki", "8Ki"),
            ("+8Ki", "8Ki"),
            ("08Ki", "8Ki"),
        ]);
    }

    #[test]
    fn odd_but_valid_syntax() {
        assert_canonical(&[
            (".5", "500m"),
            ("5.", "5."),
            (".", "0"),
            ("-", "0"),
            ("+", "0"),
            ("-.", "0"),
            ("Ki", "0"),
            ("k", "0"),
            ("e3", "0"),
            ("00", "0"),
            ("1e4294967299", "1e4294967299"),
        ]);
        assert_eq!(quantity("1e4294967299").value(), 1000);
        assert_eq!(quantity("e3").format(), Format::DecimalExponent);
    }

    #[test]
    fn rejects() {
        let format = QuantityError::FormatWrong;
        let suffix = QuantityError::Suffix;
        let numeric = QuantityError::Numeric;
        let cases = [
            ("", &format),
            (" 1", &format),
            ("1 ", &format),
            (" 1Gi", &format),
            ("1Gi ", &format),
            ("1.1.M", &format),
            ("1+1.0M", &format),
            ("0.1mi", &suffix),
            ("0.1am", &format),
            ("aoeu", &format),
            (".5i", &suffix),
            ("1i", &suffix),
            ("-3.01i", &suffix),
            ("-3.01e-", &suffix),
            ("1e", &suffix),
            ("1K", &suffix),
            ("1KiB", &format),
            ("1Ee3", &suffix),
            ("1e3.5", &format),
            ("1e+-3", &format),
            ("1e99999999999999999999", &suffix),
            ("1Gi5", &suffix),
            ("1٣", &format),
            ("-Pi", &numeric),
            ("Ei", &numeric),
            ("e-10", &numeric),
            ("-.e-12", &numeric),
        ];
        for (input, expected) in cases {
            assert_eq!(
                Quantity::parse(input).as_ref(),
                Err(expected),
                "input {input:?}"
            );
        }
        assert_eq!(
            QuantityError::FormatWrong.to_string(),
            "quantities must match the regular expression \
             '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        );
        assert_eq!(
            QuantityError::Suffix.to_string(),
            "unable to parse quantity's suffix"
        );
        assert_eq!(
            QuantityError::Numeric.to_string(),
            "unable to parse numeric part of quantity"
        );
    }

    #[test]
    fn format_follows_the_suffix() {
        for (input, expected) in [
            ("1Ki", Format::BinarySI),
            ("1Mi", Format::BinarySI),
            ("1Gi", Format::BinarySI),
            ("1Ti", Format::BinarySI),
            ("1Pi", Format::BinarySI),
            ("1Ei", Format::BinarySI),
            ("1n", Format::DecimalSI),
            ("1u", Format::DecimalSI),
            ("1m", Format::DecimalSI),
            ("1", Format::DecimalSI),
            ("1k", Format::DecimalSI),
            ("1M", Format::DecimalSI),
            ("1G", Format::DecimalSI),
            ("1T", Format::DecimalSI),
            ("1P", Format::DecimalSI),
            ("1E", Format::DecimalSI),
            ("1e3", Format::DecimalExponent),
            ("1E-3", Format::DecimalExponent),
        ] {
            assert_eq!(quantity(input).format(), expected, "input {input:?}");
        }
    }

    #[test]
    fn huge_values() {
        assert_canonical(&[
            // Binary quantities are capped at 2^63 - 1.
            ("9Ei", "9223372036854775807"),
            ("8Ei", "9223372036854775807"),
            ("7Ei", "7Ei"),
            ("9223372036854775807Ki", "9223372036854775807"),
            ("-16Ei", "-9223372036854775807"),
            (
                "1000000000000000000000000000000000000000000000000Ki",
                "9223372036854775807",
            ),
            ("3.5Ei", "3584Pi"),
            // Decimal ones are not, and print without a suffix past E.
            ("1000E", "1"),
            ("1e21", "1e21"),
            ("1e22", "10e21"),
            ("10000000000000000000000", "10"),
            (
                "12345678901234567890123456789012345678",
                "12345678901234567890123456789012345678",
            ),
            ("1e1000000000", "10e999999999"),
            ("1e-1000000000", "1e-9"),
        ]);
        assert_eq!(quantity("9Ei").value(), i64::MAX);
        assert_eq!(quantity("1000E").value(), i64::MAX);
        assert_eq!(quantity("-1000E").value(), i64::MIN);
        assert_eq!(quantity("1e1000000000").value(), i64::MAX);
        for input in [
            "123456789012345678901234567890123456789",
            "1234567890123456789012345678901234567.89",
            "1e2000000000",
            "1e-2000000000",
        ] {
            assert_eq!(
                Quantity::parse(input),
                Err(QuantityError::OutOfRange),
                "input {input:?}"
            );
        }
        let long = format!("1{}", "0".repeat(100_000));
        assert_eq!(canonical(&long), "10");
    }

    #[test]
    fn values() {
        for (input, expected) in [
            ("0", 0),
            ("1", 1),
            ("1.5", 2),
            ("1n", 1),
            ("1001m", 2),
            ("1Gi", 1_073_741_824),
            ("1.5Gi", 1_610_612_736),
            ("1E", 1_000_000_000_000_000_000),
            ("9223372036854775807", i64::MAX),
            ("9223372036854775808", i64::MAX),
            ("-9223372036854775808", i64::MIN),
            // Fast path, scaled int64: away from zero.
            ("-1.5", -2),
            ("-1n", -1),
            // Slow path, inf.Dec: truncated, then one added.
            ("-1.0000000001", 0),
            ("-0.0000000001", 1),
            ("-1.50000000000000000000", 0),
            ("-1.5Gi", -1_610_612_736),
        ] {
            assert_eq!(quantity(input).value(), expected, "input {input:?}");
        }
    }

    #[test]
    fn comparisons() {
        let less = [
            ("0", "1n"),
            ("-1n", "0"),
            ("999m", "1"),
            ("1G", "1Gi"),
            ("1023", "1Ki"),
            ("-1Gi", "-1G"),
            ("1e3", "1001"),
            ("9223372036854775807", "1e19"),
            ("1.000000001", "1.000000002"),
            ("15", "150"),
            ("105", "150"),
            ("1e-9", "2n"),
            ("1e1000000000", "1e1000000001"),
            ("-1e1000000001", "-1e1000000000"),
        ];
        for (a, b) in less {
            assert_eq!(
                quantity(a).cmp_value(&quantity(b)),
                Ordering::Less,
                "{a} < {b}"
            );
            assert_eq!(
                quantity(b).cmp_value(&quantity(a)),
                Ordering::Greater,
                "{b} > {a}"
            );
        }
        let equal = [
            ("1k", "1000"),
            ("1e3", "1k"),
            ("1Ki", "1024"),
            ("0", "-0Ki"),
            ("1.5", "1500m"),
            ("+1Gi", "1Gi"),
            ("1000E", "1e21"),
        ];
        for (a, b) in equal {
            assert_eq!(
                quantity(a).cmp_value(&quantity(b)),
                Ordering::Equal,
                "{a} = {b}"
            );
        }
        assert_eq!(quantity("1.5"), quantity("1500m"));
        assert_eq!(quantity("+1Gi"), quantity("1024Mi"));
        assert_ne!(quantity("1k"), quantity("1e3"));
        assert_ne!(quantity("1Ki"), quantity("1024"));
    }

    #[test]
    fn zero() {
        for input in ["0", "0Ki", "-0", "0.0", "0e9", "000m", "."] {
            assert!(quantity(input).is_zero(), "input {input:?}");
        }
        for input in ["1n", "-1n", "0.0000000000001"] {
            assert!(!quantity(input).is_zero(), "input {input:?}");
        }
        assert!(Quantity::from_i64(0, Format::BinarySI).is_zero());
    }

    #[test]
    fn from_i64() {
        for (value, format, expected) in [
            (1, Format::DecimalSI, "1"),
            (1000, Format::DecimalSI, "1k"),
            (1_234_000, Format::DecimalSI, "1234k"),
            (1024, Format::BinarySI, "1Ki"),
            (1_000_000, Format::DecimalExponent, "1e6"),
            (1_048_576, Format::BinarySI, "1Mi"),
            (1000, Format::BinarySI, "1k"),
            (1023, Format::BinarySI, "1023"),
            (512, Format::BinarySI, "512"),
            (-1024, Format::BinarySI, "-1Ki"),
            (0, Format::BinarySI, "0"),
            (i64::MAX, Format::BinarySI, "9223372036854775807"),
            (i64::MAX, Format::DecimalSI, "9223372036854775807"),
            (i64::MIN, Format::BinarySI, "-9223372036854775808"),
            (i64::MIN + 1024, Format::BinarySI, "-9007199254740991Ki"),
            (i64::MIN, Format::DecimalSI, "-9223372036854775808"),
            (-1_000_000_000_000_000_000, Format::DecimalSI, "-1E"),
        ] {
            let quantity = Quantity::from_i64(value, format);
            assert_eq!(quantity.canonical(), expected, "{value} {format:?}");
            assert_eq!(quantity.to_string(), expected);
            assert_eq!(quantity.value(), value);
            assert_eq!(quantity.format(), format);
        }
    }

    #[test]
    fn overcommit() {
        for (guest, percent, expected) in [
            ("2Gi", 10, "1932735232"),
            ("3Gi", 25, "2304Mi"),
            ("1Gi", 33, "719406976"),
            ("8Gi", 15, "7130317Ki"),
            ("512Mi", 50, "256Mi"),
            ("1.5Gi", 50, "768Mi"),
            ("4Gi", 50, "2Gi"),
            ("4Gi", 100, "0"),
            ("1G", 1, "990M"),
            ("1000000000", 7, "930M"),
            ("3G", 10, "2700M"),
            ("4Gi", 150, "-2Gi"),
            ("1Gi", -100, "2Gi"),
            ("8Ei", 1, "8304722Ti"),
            ("8Ei", -100, "9223372036854775807"),
            ("8Ei", i64::MAX, "-9223372036854775808"),
        ] {
            let result = overcommitted(&quantity(guest), percent);
            assert_eq!(result.canonical(), expected, "{guest} at {percent}%");
            assert_eq!(result.format(), quantity(guest).format());
        }
    }

    #[test]
    fn json() {
        for (value, expected) in [
            (json!("1Gi"), "1Gi"),
            (json!(" 1Gi "), "1Gi"),
            (json!("\u{a0}1.5\u{3000}"), "1500m"),
            (json!(1), "1"),
            (json!(-1), "-1"),
            (json!(1024), "1024"),
            (json!(1000), "1k"),
            (json!(18_446_744_073_709_551_615_u64), "18446744073709552k"),
            (json!(1.5), "1500m"),
            (json!(1000.0), "1k"),
            (json!(0.5), "500m"),
            (json!(-0.0), "0"),
            (json!(1e20), "100E"),
            (json!(1e21), "1e+21"),
            (json!(1.5e22), "1.5e+22"),
            (json!(1e-6), "1u"),
            (json!(1e-7), "100e-9"),
            (json!(1.5e-7), "150e-9"),
            (json!(2.5e-10), "1e-9"),
        ] {
            assert_eq!(
                canonical_json(&value).as_deref(),
                Some(expected),
                "value {value}"
            );
        }
        for (value, expected) in [
            (json!(null), QuantityError::Null),
            (json!(true), QuantityError::FormatWrong),
            (json!([]), QuantityError::FormatWrong),
            (json!({}), QuantityError::FormatWrong),
            (json!(""), QuantityError::FormatWrong),
            (json!("\t1Gi"), QuantityError::FormatWrong),
            (json!("1Gi\n"), QuantityError::FormatWrong),
            (json!("1Gi\u{2028}"), QuantityError::FormatWrong),
            (json!("1 Gi"), QuantityError::FormatWrong),
        ] {
            assert_eq!(Quantity::from_json(&value), Err(expected), "value {value}");
            assert_eq!(canonical_json(&value), None);
        }
        assert_eq!(
            Quantity::from_json(&json!(1e21)).map(|q| q.format()),
            Ok(Format::DecimalExponent)
        );
    }

    #[test]
    fn go_number_texts() {
        for (value, expected) in [
            (1e21, "1e+21"),
            (1.234_567_8e300, "1.2345678e+300"),
            (1e-7, "1e-7"),
            (1e-10, "1e-10"),
            (-2.5e-300, "-2.5e-300"),
            (123_456.789, "123456.789"),
            (0.1, "0.1"),
            (1e20, "100000000000000000000"),
            (0.000_001, "0.000001"),
            (0.0, "0"),
            (-0.0, "-0"),
            (602_670_391_587_017.2, "602670391587017.2"),
            (5.960_464_477_539_063e-8, "5.960464477539063e-8"),
            (1.5, "1.5"),
            (-1234.5, "-1234.5"),
            (123e18, "123000000000000000000"),
        ] {
            let number = Number::from_f64(value).unwrap_or_else(|| panic!("{value}"));
            assert_eq!(go_number_text(&number), expected, "value {value}");
        }
    }

    #[test]
    fn display_matches_canonical() {
        for input in ["1.5Gi", "+1Gi", "1e3", "0", "-1500m"] {
            let quantity = quantity(input);
            assert_eq!(quantity.to_string(), quantity.canonical());
        }
    }
}
