//! The parser of `resource.ParseQuantity`: Go's scanner, its fast path for what fits a scaled
//! int64, and the slow path through arbitrary-precision digits.

use std::cmp::Ordering;

use super::digits::{compare_digits, increment, multiply, parse_digits, to_i64};
use super::{FAST_DIGITS, Format, MAX_BINARY, MAX_DIGITS, NANO, Quantity, QuantityError, Repr};

/// A quantity text split the way Go's scanner splits it.
pub(super) struct Parts<'a> {
    negative: bool,
    /// Integer digits without leading zeros, or `0` when none are left.
    whole: &'a [u8],
    fraction: &'a [u8],
    pub(super) suffix: &'a [u8],
    /// Whether the number as written has a digit at all: `-`, `.` and the empty number
    /// have none, which Go's fast parser reads as 0 and its slow parser rejects.
    has_digit: bool,
}

impl<'a> Parts<'a> {
    pub(super) fn scan(text: &'a [u8]) -> Result<Parts<'a>, QuantityError> {
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
/// Go's fast parser: numbers of few enough digits that land on whole nanos, kept as a scaled
/// int64. `None` where Go goes on to its slow parser.
pub(super) fn parse_fast(
    text: &str,
    parts: &Parts<'_>,
    exponent: i32,
    format: Format,
) -> Option<Quantity> {
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
pub(super) fn parse_slow(
    parts: &Parts<'_>,
    exponent: i32,
    format: Format,
) -> Result<Quantity, QuantityError> {
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
