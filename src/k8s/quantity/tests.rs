use super::*;
use serde_json::{Number, json};

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

/// `String()`, `Value()` and `MilliValue()` as apimachinery v0.34.2 (vendored by `KubeVirt`
/// v1.9.0) gives them for `ParseQuantity` of the input, observed with Go 1.27. The scaled int64
/// form rounds a negative fraction away from zero; the `inf.Dec` form (inputs finer than a
/// nano as written) truncates and then adds one, whatever the sign.
#[test]
fn value_and_milli_value_as_go() {
    for (input, string, value, milli) in [
        // Scaled int64.
        ("0.5", "500m", 1, 500),
        ("1.5", "1500m", 2, 1500),
        ("1500u", "1500u", 1, 2),
        ("1n", "1n", 1, 1),
        ("-500m", "-500m", -1, -500),
        ("-1.5", "-1500m", -2, -1500),
        ("-0.1", "-100m", -1, -100),
        ("-1", "-1", -1, -1000),
        ("-1m", "-1m", -1, -1),
        ("-1u", "-1u", -1, -1),
        ("-1n", "-1n", -1, -1),
        ("-100n", "-100n", -1, -1),
        ("-1500u", "-1500u", -1, -2),
        ("-999999u", "-999999u", -1, -1000),
        ("-1.0000005", "-1000000500n", -2, -1001),
        ("-1.000000001", "-1.000000001", -2, -1001),
        ("-1.5k", "-1500", -1500, -1_500_000),
        ("-1Ki", "-1Ki", -1024, -1_024_000),
        // inf.Dec.
        ("1.0000000001", "1000000001n", 2, 1001),
        ("0.0000000001", "1n", 1, 1),
        ("-0.0000000001", "-1n", 1, 1),
        ("-0.0000000011", "-2n", 1, 1),
        ("-100.5n", "-101n", 1, 1),
        ("-1e-10", "-1e-9", 1, 1),
        ("-0.0009999999", "-1m", 1, -1),
        ("-0.0010000001", "-1000001n", 1, 0),
        ("-0.5000000001", "-500000001n", 1, -499),
        ("-0.9999999999", "-1", -1, -1000),
        ("-1.0000000001", "-1000000001n", 0, -999),
        ("-1.0000005000", "-1000000500n", 0, -999),
        ("-1.4999999999", "-1500m", 0, -1500),
        ("-1.5000000000", "-1500m", 0, -1500),
        ("-1.5000000001", "-1500000001n", 0, -1499),
        ("-1.9999999999", "-2", -2, -2000),
        ("-2.0000000001", "-2000000001n", -1, -1999),
        ("-2.5000000001", "-2500000001n", -1, -2499),
        ("-9.0000000001", "-9000000001n", -8, -8999),
        ("-0.5Ki", "-512", -512, -512_000),
        ("-1.5Gi", "-1536Mi", -1_610_612_736, -1_610_612_736_000),
    ] {
        let quantity = quantity(input);
        assert_eq!(quantity.canonical(), string, "input {input:?}");
        assert_eq!(quantity.value(), value, "input {input:?}");
        assert_eq!(quantity.milli_value(), milli, "input {input:?}");
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
