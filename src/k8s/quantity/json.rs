//! Quantities written as JSON: the text Go reads from a JSON string or number.

use serde_json::Number;

use super::digits::to_i64;

/// Go's `strings.TrimSpace` as it applies inside a JSON string: the white space a JSON
/// encoder escapes (ASCII controls, U+2028, U+2029) reaches Go as escapes, which it does not
/// trim and which then fail to parse.
pub(super) fn is_trimmed_space(c: char) -> bool {
    c.is_whitespace() && !c.is_ascii_control() && !matches!(c, '\u{2028}' | '\u{2029}')
}

/// The text Go's `encoding/json` writes for a number: an int64 as it is, a float64 in the
/// shortest form that reads back, with an exponent (`1e+21`, `1e-7`) outside [1e-6, 1e21).
pub(super) fn go_number_text(number: &Number) -> String {
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
