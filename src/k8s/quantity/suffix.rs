//! The suffixes of a quantity (`Ki`, `M`, `e3`), as the `suffixer` of the resource package reads
//! and writes them.

use super::Format;

/// The exponent (of 10, or of 2 for binary) and format a suffix stands for.
pub(super) fn interpret_suffix(suffix: &[u8]) -> Option<(i32, Format)> {
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
/// The decimal SI suffix for an exponent that is a multiple of 3; Go prints none beyond `E`.
pub(super) fn decimal_si_suffix(exponent: i64) -> &'static str {
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
