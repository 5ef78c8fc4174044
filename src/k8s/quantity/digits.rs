//! Arithmetic on decimal digit strings, for the values Go holds as `inf.Dec`.

use std::cmp::Ordering;

/// ASCII digits as a number, `None` if it does not fit.
pub(super) fn parse_digits(digits: &[u8]) -> Option<i128> {
    digits.iter().try_fold(0_i128, |value, &digit| {
        value
            .checked_mul(10)?
            .checked_add(i128::from(digit.checked_sub(b'0')?))
    })
}

/// Multiplies least-significant-first decimal digits by `factor` (at most 2^30).
pub(super) fn multiply(digits: &mut Vec<u8>, factor: u64) {
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
pub(super) fn increment(digits: &mut Vec<u8>) {
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
pub(super) fn compare_digits(a: &[u8], a_exponent: i64, b: &[u8], b_exponent: i64) -> Ordering {
    (to_i64(a.len()) + a_exponent)
        .cmp(&(to_i64(b.len()) + b_exponent))
        .then_with(|| a.cmp(b))
}

pub(super) fn to_i64(length: usize) -> i64 {
    i64::try_from(length).unwrap_or(i64::MAX)
}
