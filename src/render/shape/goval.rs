//! Value rewrites done by Go decoders and encoders: `sanitizeIP` and
//! `sanitizeCIDR` (lenient IP parsing, leading zeros allowed, printed the way Go's
//! `net.IP.String` does) and `metav1.Time` (RFC 3339 in, UTC whole seconds out).

use std::fmt::Write as _;

use serde_json::Value;

/// The rewrite of `sanitizeIP`, or `None` when the text is not an IP address
/// (the value is then kept).
pub(super) fn sanitize_ip(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    match bytes.iter().find(|byte| matches!(byte, b'.' | b':'))? {
        b'.' => parse_ipv4(bytes).map(|ip| format_ip(&v4_in_v6(ip))),
        _ => parse_ipv6(bytes).map(|ip| format_ip(&ip)),
    }
}

/// The rewrite of `sanitizeCIDR`: the address as given (not masked), then the
/// prefix length.
pub(super) fn sanitize_cidr(text: &str) -> Option<String> {
    let (address, prefix) = text.split_once('/')?;
    let (ip, bits) = match parse_ipv4(address.as_bytes()) {
        Some(ip) => (v4_in_v6(ip), 32),
        None => (parse_ipv6(address.as_bytes())?, 128),
    };
    let (length, used) = decimal(prefix.as_bytes())?;
    (used == prefix.len() && length <= bits).then(|| format!("{}/{length}", format_ip(&ip)))
}

/// Decimal digits at the start of `text`: their value and how many there are.
fn decimal(text: &[u8]) -> Option<(u32, usize)> {
    const BIG: u32 = 0x00FF_FFFF;
    let mut value: u32 = 0;
    let mut used = 0;
    for byte in text.iter().take_while(|byte| byte.is_ascii_digit()) {
        value = value * 10 + u32::from(byte - b'0');
        if value >= BIG {
            return None;
        }
        used += 1;
    }
    (used > 0).then_some((value, used))
}

/// Hexadecimal digits at the start of `text`: their value and how many there are.
fn hexadecimal(text: &[u8]) -> Option<(u32, usize)> {
    const BIG: u32 = 0x00FF_FFFF;
    let mut value: u32 = 0;
    let mut used = 0;
    for byte in text {
        let Some(digit) = char::from(*byte).to_digit(16) else {
            break;
        };
        value = value * 16 + digit;
        if value >= BIG {
            return None;
        }
        used += 1;
    }
    (used > 0).then_some((value, used))
}

/// Dotted decimal with exactly four parts, leading zeros allowed.
fn parse_ipv4(mut text: &[u8]) -> Option<[u8; 4]> {
    let mut ip = [0_u8; 4];
    for (index, part) in ip.iter_mut().enumerate() {
        if index > 0 {
            text = text.strip_prefix(b".")?;
        }
        let (value, used) = decimal(text)?;
        *part = u8::try_from(value).ok()?;
        text = &text[used..];
    }
    text.is_empty().then_some(ip)
}

/// Colon-separated hex groups with at most one `::` and an optional dotted IPv4 tail.
fn parse_ipv6(mut text: &[u8]) -> Option<[u8; 16]> {
    let mut ip = [0_u8; 16];
    let mut ellipsis: Option<usize> = None;
    if text.starts_with(b"::") {
        ellipsis = Some(0);
        text = &text[2..];
        if text.is_empty() {
            return Some(ip);
        }
    }
    let mut filled = 0;
    while filled < 16 {
        let (value, used) = hexadecimal(text)?;
        let group = u16::try_from(value).ok()?;
        if text.get(used) == Some(&b'.') {
            if (ellipsis.is_none() && filled != 12) || filled + 4 > 16 {
                return None;
            }
            ip[filled..filled + 4].copy_from_slice(&parse_ipv4(text)?);
            text = &[];
            filled += 4;
            break;
        }
        ip[filled..filled + 2].copy_from_slice(&group.to_be_bytes());
        filled += 2;
        text = &text[used..];
        if text.is_empty() {
            break;
        }
        if text[0] != b':' || text.len() == 1 {
            return None;
        }
        text = &text[1..];
        if text[0] == b':' {
            if ellipsis.is_some() {
                return None;
            }
            ellipsis = Some(filled);
            text = &text[1..];
            if text.is_empty() {
                break;
            }
        }
    }
    if !text.is_empty() {
        return None;
    }
    if filled < 16 {
        let start = ellipsis?;
        let gap = 16 - filled;
        ip.copy_within(start..filled, start + gap);
        ip[start..start + gap].fill(0);
    } else if ellipsis.is_some() {
        return None;
    }
    Some(ip)
}

fn v4_in_v6(ip: [u8; 4]) -> [u8; 16] {
    let mut mapped = [0_u8; 16];
    mapped[10] = 0xff;
    mapped[11] = 0xff;
    mapped[12..].copy_from_slice(&ip);
    mapped
}

/// Go's `net.IP.String` for a 16-byte address: IPv4-mapped addresses in dotted form,
/// others as RFC 5952 text (the first longest run of two or more zero groups as `::`).
fn format_ip(ip: &[u8; 16]) -> String {
    if ip[..10].iter().all(|byte| *byte == 0) && ip[10] == 0xff && ip[11] == 0xff {
        return format!("{}.{}.{}.{}", ip[12], ip[13], ip[14], ip[15]);
    }
    let groups: Vec<u16> = ip
        .chunks_exact(2)
        .map(|pair| u16::from_be_bytes([pair[0], pair[1]]))
        .collect();
    let mut run: Option<(usize, usize)> = None;
    let mut start = 0;
    while start < groups.len() {
        let end = start
            + groups[start..]
                .iter()
                .take_while(|group| **group == 0)
                .count();
        if end - start >= 2 && run.is_none_or(|(from, to)| end - start > to - from) {
            run = Some((start, end));
        }
        start = end.max(start + 1);
    }
    let mut text = String::new();
    let mut index = 0;
    while index < groups.len() {
        if let Some((_, to)) = run.filter(|(from, _)| *from == index) {
            text.push_str("::");
            index = to;
            if index >= groups.len() {
                break;
            }
        } else if index > 0 {
            text.push(':');
        }
        let _ = write!(text, "{:x}", groups[index]);
        index += 1;
    }
    text
}

/// What `metav1.Time` prints for an RFC 3339 input: the same instant in UTC with whole
/// seconds, or `null` for the zero time. `None` when Go would not parse the text.
pub(super) fn canonical_time(text: &str) -> Option<Value> {
    let (seconds, nanos) = parse_rfc3339(text.as_bytes())?;
    if seconds == ZERO_TIME && nanos == 0 {
        return Some(Value::Null);
    }
    let days = seconds.div_euclid(86_400);
    let clock = seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    if !(0..=9999).contains(&year) {
        return None;
    }
    Some(Value::String(format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        clock / 3600,
        clock / 60 % 60,
        clock % 60
    )))
}

/// Seconds from 1970-01-01T00:00:00Z to Go's zero time, 0001-01-01T00:00:00Z.
const ZERO_TIME: i64 = -62_135_596_800;

/// The instant (Unix seconds, nanoseconds) of `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
fn parse_rfc3339(text: &[u8]) -> Option<(i64, u32)> {
    fn number(text: &[u8], range: std::ops::Range<usize>, max: i64) -> Option<i64> {
        let digits = text.get(range)?;
        let mut value = 0_i64;
        for digit in digits {
            if !digit.is_ascii_digit() {
                return None;
            }
            value = value * 10 + i64::from(digit - b'0');
        }
        (value <= max).then_some(value)
    }
    let year = number(text, 0..4, 9999)?;
    let month = number(text, 5..7, 12)?;
    let day = number(text, 8..10, 31)?;
    let hour = number(text, 11..13, 23)?;
    let minute = number(text, 14..16, 59)?;
    let second = number(text, 17..19, 59)?;
    if [text[4], text[7], text[10], text[13], text[16]] != *b"--T::"
        || month < 1
        || day < 1
        || day > days_in_month(year, month)
    {
        return None;
    }
    let mut rest = &text[19..];
    let mut nanos = 0_u32;
    if rest.len() >= 2 && matches!(rest[0], b'.' | b',') && rest[1].is_ascii_digit() {
        let digits = rest[1..]
            .iter()
            .take_while(|byte| byte.is_ascii_digit())
            .count();
        let fraction = &rest[1..=digits];
        // Go reads nine digits at most and ignores the rest.
        for position in 0..9 {
            let digit = fraction.get(position).map_or(0, |digit| digit - b'0');
            nanos = nanos * 10 + u32::from(digit);
        }
        rest = &rest[1 + digits..];
    }
    let offset = if rest == b"Z" {
        0
    } else {
        if rest.len() != 6 || rest[3] != b':' {
            return None;
        }
        let hours = number(rest, 1..3, 23)?;
        let minutes = number(rest, 4..6, 59)?;
        match rest[0] {
            b'+' => (hours * 60 + minutes) * 60,
            b'-' => -(hours * 60 + minutes) * 60,
            _ => return None,
        }
    };
    let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second;
    Some((seconds - offset, nanos))
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The proleptic Gregorian date of a day count since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{canonical_time, sanitize_ip};

    #[test]
    fn a_dotted_tail_fits_only_in_the_last_four_bytes() {
        // Go's parseIPv6: a dotted IPv4 tail needs `::` or exactly six groups before it, and
        // room for its four bytes.
        let cases = [
            ("1:2:3:4:5:6:1.2.3.4", Some("1:2:3:4:5:6:102:304")),
            ("1:2:3:4:5:1.2.3.4", None),
            ("1::6:1.2.3.4", Some("1::6:102:304")),
            ("1:2:3:4:5:6:7:1.2.3.4", None),
            ("1::2:3:4:5:6:7:1.2.3.4", None),
        ];
        for (input, expected) in cases {
            assert_eq!(sanitize_ip(input).as_deref(), expected, "{input}");
        }
    }

    #[test]
    fn a_group_without_hex_digits_is_not_an_address() {
        for input in ["1:::2", "1::2:::3", "::g"] {
            assert_eq!(sanitize_ip(input), None, "{input}");
        }
    }

    #[test]
    fn only_ipv4_mapped_addresses_print_dotted() {
        let cases = [
            ("::ffff:102:304", "1.2.3.4"),
            ("::ff:102:304", "::ff:102:304"),
            ("::ff00:102:304", "::ff00:102:304"),
            ("1::ffff:102:304", "1::ffff:102:304"),
        ];
        for (input, expected) in cases {
            assert_eq!(sanitize_ip(input).as_deref(), Some(expected), "{input}");
        }
    }

    #[test]
    fn calendar_dates_follow_the_gregorian_rules() {
        let cases = [
            ("1970-03-01T00:00:00Z", Some(json!("1970-03-01T00:00:00Z"))),
            ("2024-04-30T00:00:00Z", Some(json!("2024-04-30T00:00:00Z"))),
            ("2024-04-31T00:00:00Z", None),
            ("1900-02-29T00:00:00Z", None),
            ("2000-02-29T00:00:00Z", Some(json!("2000-02-29T00:00:00Z"))),
            // Any fraction makes an instant other than the zero time.
            (
                "0001-01-01T00:00:00.1Z",
                Some(json!("0001-01-01T00:00:00Z")),
            ),
            ("0001-01-01T00:00:00.0Z", Some(Value::Null)),
        ];
        for (input, expected) in cases {
            assert_eq!(canonical_time(input), expected, "{input}");
        }
    }
}
