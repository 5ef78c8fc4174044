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
//!   [`Quantity::milli_value`] rounds thousandths the same way.
//!
//! Go stores arbitrary-precision decimals; this module keeps at most 38 significant digits
//! and a decimal exponent within ±2^30, and reports [`QuantityError::OutOfRange`] beyond that.

use std::cmp::Ordering;
use std::fmt;

use serde_json::Value;

use crate::model::value::present_at;
use digits::compare_digits;
use json::{go_number_text, is_trimmed_space};
use parse::{Parts, parse_fast, parse_slow};
use suffix::{decimal_si_suffix, interpret_suffix};

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
        self.scaled_value(0)
    }

    /// The value in thousandths, as Go's `Quantity.MilliValue()`: rounded as
    /// [`Quantity::value`] rounds, so `-1500u` gives -2 and `-1.5000000001` gives -1499.
    /// It saturates where `value` does, and beyond the `i64` range of thousandths.
    pub(crate) fn milli_value(&self) -> i64 {
        self.scaled_value(-3)
    }

    /// Go's `ScaledValue(scale)`: the value in units of 10^`scale`, rounded as its scaled
    /// int64 (`AsScaledInt64`) or `inf.Dec` (`scaledValue`) path rounds.
    fn scaled_value(&self, scale: i64) -> i64 {
        let saturated = if self.mantissa < 0 {
            i64::MIN
        } else {
            i64::MAX
        };
        let exponent = self.exponent - scale;
        if exponent >= 0 {
            return u32::try_from(exponent)
                .ok()
                .and_then(|places| 10_i128.checked_pow(places))
                .and_then(|factor| factor.checked_mul(self.mantissa))
                .and_then(|whole| i64::try_from(whole).ok())
                .unwrap_or(saturated);
        }
        // The mantissa has no trailing zero, so a negative exponent always leaves a fraction.
        let quotient = u32::try_from(-exponent)
            .ok()
            .and_then(|places| 10_i128.checked_pow(places))
            .map_or(0, |divisor| self.mantissa / divisor);
        let rounded = if self.mantissa < 0 && self.repr == Repr::Int64 {
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

mod digits;
mod json;
mod parse;
mod suffix;

#[cfg(test)]
mod tests;
