//! How GLib's key-file reader turns a raw value into a typed one. These
//! follow `g_key_file_parse_value_as_*` in GLib 2.7x and are checked against
//! `GLib.KeyFile` in `tests/glib_agreement.rs`.

use std::borrow::Cow;

/// The GLib type DeepStream reads a key with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueType {
    Int,
    Uint64,
    Double,
    Bool,
    String,
    IntList,
    DoubleList,
    StringList,
}

impl ValueType {
    pub fn parse(s: &str) -> Option<ValueType> {
        Some(match s {
            "int" => ValueType::Int,
            "uint64" => ValueType::Uint64,
            "double" => ValueType::Double,
            "bool" => ValueType::Bool,
            "string" => ValueType::String,
            "int_list" => ValueType::IntList,
            "double_list" => ValueType::DoubleList,
            "string_list" => ValueType::StringList,
            _ => return None,
        })
    }

    pub fn describe(self) -> &'static str {
        match self {
            ValueType::Int => "an integer",
            ValueType::Uint64 => "an unsigned 64-bit integer",
            ValueType::Double => "a number",
            ValueType::Bool => "a boolean (true, false, 1 or 0)",
            ValueType::String => "a string",
            ValueType::IntList => "a `;` list of integers",
            ValueType::DoubleList => "a `;` list of numbers",
            ValueType::StringList => "a `;` list of strings",
        }
    }
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// How C's integer readers (`strtol`, `g_ascii_strtoull`) start: ASCII
/// whitespace, one optional sign, then decimal digits. Whether the sign is
/// `-`, the text after the sign, and how many digits start it.
fn sign_and_digits(text: &str) -> (bool, &str, usize) {
    // (`is_space` by bytes: its characters are ASCII, so the bytes
    // skipped end on a character boundary.)
    let skip = text.bytes().take_while(|&b| is_space(char::from(b))).count();
    let s = &text[skip..];
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    (neg, rest, rest.bytes().take_while(u8::is_ascii_digit).count())
}

/// `strtol(value, &end, 10)` then "end is NUL or whitespace", range-checked
/// to a C `int`: so `2 # note` reads as 2, but `2#note` and `0x10` fail.
pub fn parse_int(value: &str) -> Option<i64> {
    let (neg, digits, len) = sign_and_digits(value);
    if len == 0 {
        return None;
    }
    // What follows the digits starts with a space or is nothing (the
    // spaces are ASCII: the first byte says).
    if digits.as_bytes().get(len).is_some_and(|&b| !is_space(char::from(b))) {
        return None;
    }
    // `digits[..len].parse::<i64>()` of ASCII digits, by hand: `None`
    // past `i64::MAX`, as the parse fails there.
    let n = digits.as_bytes()[..len]
        .iter()
        .try_fold(0i64, |n, &d| n.checked_mul(10)?.checked_add(i64::from(d - b'0')))?;
    let n = if neg { -n } else { n };
    if n < i32::MIN as i64 || n > i32::MAX as i64 {
        return None;
    }
    Some(n)
}

/// `g_ascii_strtoull` with nothing after the digits (GLib also wraps a
/// leading `-`, which no DeepStream value means; we refuse it).
pub fn parse_uint64(value: &str) -> Option<u64> {
    let s = value.trim_start_matches(is_space);
    let s = s.strip_prefix('+').unwrap_or(s);
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `g_ascii_strtoull(text, &end, 10)`: the value and the bytes read (0
/// when nothing converts). GLib skips ASCII whitespace, takes one `+` or
/// `-` (negating, so it wraps), then decimal digits, leading zeros
/// included; a value too large saturates at `u64::MAX`.
pub fn ascii_strtoull(text: &str) -> (u64, usize) {
    let (neg, unsigned, digits) = sign_and_digits(text);
    if digits == 0 {
        return (0, 0);
    }
    let value = unsigned[..digits]
        .bytes()
        .try_fold(0u64, |v, d| v.checked_mul(10)?.checked_add(u64::from(d - b'0')));
    let value = match value {
        None => u64::MAX,
        Some(v) if neg => v.wrapping_neg(),
        Some(v) => v,
    };
    (value, text.len() - unsigned.len() + digits)
}

/// `g_ascii_strtod` with nothing after the number, not even a space.
pub fn parse_double(value: &str) -> Option<f64> {
    let s = value.trim_start_matches(is_space);
    if s.is_empty() || s.ends_with(is_space) {
        return None;
    }
    // The sign and the forms below compared without case, as the text
    // lowercased would be (no copy: nearly every value is decimal).
    let body = s.trim_start_matches(['+', '-']);
    let b = body.as_bytes();
    if b.len() >= 2 && b[0] == b'0' && b[1].eq_ignore_ascii_case(&b'x') {
        return parse_hex_float(&s.to_ascii_lowercase());
    }
    if ["inf", "infinity", "nan"].iter().any(|w| body.eq_ignore_ascii_case(w)) {
        return s.to_ascii_lowercase().parse().ok();
    }
    // Rust's parser accepts what strtod accepts for decimal forms, except
    // that it also takes "inf"/"nan" spellings handled above.
    if !body.bytes().next().is_some_and(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    s.parse().ok()
}

fn parse_hex_float(s: &str) -> Option<f64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let body = body.strip_prefix("0x")?;
    let (mant, exp) = match body.split_once('p') {
        Some((m, e)) => (m, e.parse::<i32>().ok()?),
        None => (body, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut v = 0f64;
    for c in int.chars() {
        v = v * 16.0 + c.to_digit(16)? as f64;
    }
    let mut scale = 1.0 / 16.0;
    for c in frac.chars() {
        v += c.to_digit(16)? as f64 * scale;
        scale /= 16.0;
    }
    let v = v * 2f64.powi(exp);
    Some(if neg { -v } else { v })
}

/// `true`/`false`/`1`/`0`, trailing whitespace ignored, nothing else.
pub fn parse_bool(value: &str) -> Option<bool> {
    match value.trim_end_matches(is_space) {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

/// Unescape a string value: `\s \n \t \r \\` are escapes; any other
/// backslash sequence makes `g_key_file_get_string` fail.
pub fn parse_string(value: &str) -> Result<String, String> {
    unescape(value, None).map(|mut v| v.pop().unwrap_or_default())
}

/// Split a list on `;` (a `\;` stays in the item), dropping one trailing
/// empty item, as `g_key_file_get_string_list` does.
pub fn split_list(value: &str) -> Result<Vec<String>, String> {
    Ok(list_items(value)?.map(Cow::into_owned).collect())
}

/// The items of a `;` list as [`split_list`] makes them, one at a time
/// (borrowed where an item has no escape), or its error: a list is
/// counted or searched without a string for each item (a 10 MB value of
/// `;` is 10^7 items).
pub fn list_items(value: &str) -> Result<ListItems<'_>, String> {
    check_escapes(value, Some(b';'))?;
    Ok(ListItems {
        value,
        at: 0,
        done: false,
    })
}

/// The items of a list whose escapes are known good ([`list_items`]).
#[derive(Clone)]
pub struct ListItems<'a> {
    value: &'a str,
    /// Where the next item starts.
    at: usize,
    done: bool,
}

impl<'a> Iterator for ListItems<'a> {
    type Item = Cow<'a, str>;

    fn next(&mut self) -> Option<Cow<'a, str>> {
        if self.done {
            return None;
        }
        let bytes = self.value.as_bytes();
        // The next `;` that no backslash escapes (an escape is two bytes:
        // the escaped character is ASCII, `check_escapes`).
        let mut i = self.at;
        let mut escaped = false;
        let end = loop {
            match memchr::memchr2(b';', b'\\', &bytes[i..]).map(|j| i + j) {
                Some(j) if bytes[j] == b'\\' => {
                    escaped = true;
                    i = j + 2;
                }
                found => break found,
            }
        };
        let item = &self.value[self.at..end.unwrap_or(bytes.len())];
        match end {
            Some(end) => self.at = end + 1,
            None => {
                self.done = true;
                // One trailing empty item is dropped.
                if item.is_empty() {
                    return None;
                }
            }
        }
        if !escaped {
            return Some(Cow::Borrowed(item));
        }
        let mut parts = unescape(item, Some(';')).ok()?;
        Some(Cow::Owned(parts.pop().unwrap_or_default()))
    }
}

fn unescape(value: &str, sep: Option<char>) -> Result<Vec<String>, String> {
    let mut items = vec![String::new()];
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if Some(c) == sep {
            items.push(String::new());
            continue;
        }
        let cur = items.last_mut().expect("never empty");
        if c != '\\' {
            cur.push(c);
            continue;
        }
        match chars.next() {
            Some('s') => cur.push(' '),
            Some('n') => cur.push('\n'),
            Some('t') => cur.push('\t'),
            Some('r') => cur.push('\r'),
            Some('\\') => cur.push('\\'),
            Some(c) if Some(c) == sep => cur.push(c),
            Some(c) => return Err(format!("invalid escape sequence `\\{c}`")),
            None => return Err("escape character at end of line".to_string()),
        }
    }
    Ok(items)
}

/// Whether [`unescape`] reads `value` (with the list separator `sep`),
/// and its error when not, without making the items: a value is checked
/// far more often than it is read, and nearly all have no backslash.
fn check_escapes(value: &str, sep: Option<u8>) -> Result<(), String> {
    let bytes = value.as_bytes();
    let mut pos = 0;
    while let Some(i) = memchr::memchr(b'\\', &bytes[pos..]).map(|i| pos + i) {
        // The backslash is ASCII, so `i + 1` is a character boundary.
        match value[i + 1..].chars().next() {
            Some('s' | 'n' | 't' | 'r' | '\\') => {}
            Some(c) if sep.is_some_and(|s| c == char::from(s)) => {}
            Some(c) => return Err(format!("invalid escape sequence `\\{c}`")),
            None => return Err("escape character at end of line".to_string()),
        }
        // The escaped character is ASCII here: one byte.
        pos = i + 2;
    }
    Ok(())
}

/// Check a raw value against a type; the error says what GLib would say.
pub fn check(value: &str, ty: ValueType) -> Result<(), String> {
    let bad = || Err(format!("`{}` cannot be read as {}", value, ty.describe()));
    match ty {
        ValueType::Int => parse_int(value).map(|_| ()).map_or_else(bad, Ok),
        ValueType::Uint64 => parse_uint64(value).map(|_| ()).map_or_else(bad, Ok),
        ValueType::Double => parse_double(value).map(|_| ()).map_or_else(bad, Ok),
        ValueType::Bool => parse_bool(value).map(|_| ()).map_or_else(bad, Ok),
        ValueType::String => check_escapes(value, None),
        ValueType::StringList => check_escapes(value, Some(b';')),
        ValueType::IntList => {
            for item in list_items(value)? {
                if parse_int(&item).is_none() {
                    return Err(format!("list item `{item}` is not an integer"));
                }
            }
            Ok(())
        }
        ValueType::DoubleList => {
            for item in list_items(value)? {
                if parse_double(&item).is_none() {
                    return Err(format!("list item `{item}` is not a number"));
                }
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The items one at a time are those of splitting the whole value
    /// with `unescape` (the reference `split_list` was), error and all,
    /// over every short value of `;`, `\`, escapes and letters.
    #[test]
    fn list_items_are_the_split_items() {
        let reference = |v: &str| -> Result<Vec<String>, String> {
            let mut items = unescape(v, Some(';'))?;
            if items.last().is_some_and(|s| s.is_empty()) {
                items.pop();
            }
            Ok(items)
        };
        let atoms = [";", "\\", "a", "s", "\\;", "\\\\", "é", " "];
        let mut values = vec![String::new()];
        for _ in 0..5 {
            let longer: Vec<String> = values
                .iter()
                .flat_map(|v| atoms.iter().map(move |a| format!("{v}{a}")))
                .collect();
            values.extend(longer);
            values.sort();
            values.dedup();
        }
        assert!(values.len() > 20_000, "{}", values.len());
        for v in &values {
            let lazy = list_items(v).map(|items| items.map(Cow::into_owned).collect::<Vec<_>>());
            assert_eq!(lazy, reference(v), "{v:?}");
            assert_eq!(split_list(v), reference(v), "{v:?}");
        }
        // Borrowed where an item has no escape.
        let items: Vec<Cow<str>> = list_items("a;b\\;c;d").unwrap().collect();
        assert!(matches!(items[0], Cow::Borrowed("a")));
        assert_eq!(items[1], "b;c");
        assert!(matches!(items[2], Cow::Borrowed("d")));
    }

    /// Checking a string or a list says what reading it says: the same
    /// error, at the same escape, or none.
    #[test]
    fn checked_as_read() {
        for v in [
            "",
            "a",
            "a b",
            "\\s\\n\\t\\r\\\\",
            "a\\",
            "a\\;b",
            "a;b;",
            "\\x",
            "\\\\x",
            "\\é",
            "é\\s",
            "a;\\",
            "\\;",
            "\\s\\q\\z",
            "x\\\\\\",
            ";;",
        ] {
            assert_eq!(check(v, ValueType::String), parse_string(v).map(|_| ()), "{v:?}");
            assert_eq!(check(v, ValueType::StringList), split_list(v).map(|_| ()), "{v:?}");
        }
        assert_eq!(
            check("a\\;b", ValueType::String),
            Err("invalid escape sequence `\\;`".to_string())
        );
        assert_eq!(
            check("a\\", ValueType::StringList),
            Err("escape character at end of line".to_string())
        );
        assert_eq!(
            check("\\é", ValueType::String),
            Err("invalid escape sequence `\\é`".to_string())
        );
    }

    #[test]
    fn doubles_any_case() {
        for (v, want) in [
            ("0X1P3", Some(8.0)),
            ("-0x1p1", Some(-2.0)),
            ("INF", Some(f64::INFINITY)),
            ("-Infinity", Some(f64::NEG_INFINITY)),
            ("+1e3", Some(1000.0)),
            ("1E3", Some(1000.0)),
            ("0", Some(0.0)),
            ("x", None),
            ("0x", None),
            ("infinit", None),
        ] {
            assert_eq!(parse_double(v), want, "{v:?}");
        }
        assert!(parse_double("NaN").is_some_and(f64::is_nan));
    }

    /// `parse_int` is `strtol` then the checks, as the parse of the digits
    /// was: leading zeros, signs, spaces around, the `int` range and
    /// beyond `i64`.
    #[test]
    fn integers_at_the_edges() {
        let read = [
            ("2147483647", 2147483647),
            ("-2147483648", -2147483648),
            ("000000000000000000000000007", 7),
            (" \t\x0b\x0c\r\n42 ", 42),
            ("42\x0b", 42),
            ("+0", 0),
            ("-0", 0),
        ];
        for (v, n) in read {
            assert_eq!(parse_int(v), Some(n), "{v:?}");
        }
        let refused = [
            "2147483648",
            "-2147483649",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "99999999999999999999999",
            "42é",
            "é42",
            "\u{a0}42",
            "+-1",
            "-",
        ];
        for v in refused {
            assert_eq!(parse_int(v), None, "{v:?}");
        }
        assert_eq!(ascii_strtoull("  -1x"), (u64::MAX, 4));
        assert_eq!(ascii_strtoull("\t12 "), (12, 3));
    }

    #[test]
    fn integers_like_strtol() {
        assert_eq!(parse_int("1 # c"), Some(1));
        assert_eq!(parse_int("5\t"), Some(5));
        assert_eq!(parse_int("+5"), Some(5));
        assert_eq!(parse_int("-3"), Some(-3));
        assert_eq!(parse_int("0x10"), None);
        assert_eq!(parse_int("5#c"), None);
        assert_eq!(parse_int(""), None);
        assert_eq!(parse_int("99999999999"), None);
    }

    #[test]
    fn doubles_and_booleans_are_strict() {
        assert_eq!(parse_double("0.5"), Some(0.5));
        assert_eq!(parse_double("0.5 "), None);
        assert_eq!(parse_double(".5"), Some(0.5));
        assert_eq!(parse_double("0x1p3"), Some(8.0));
        assert_eq!(parse_double("0,5"), None);
        assert_eq!(parse_bool("true "), Some(true));
        assert_eq!(parse_bool("true # on"), None);
        assert_eq!(parse_bool("yes"), None);
        assert_eq!(parse_bool("TRUE"), None);
    }

    /// Each pair is what GLib 2.x's `g_ascii_strtoull(s, &end, 10)` gives
    /// through python3-gi (`GLib.ascii_strtoull`): the value, and the text
    /// left at `end`.
    #[test]
    fn strtoull_reads_as_glib_does() {
        let cases: &[(&str, u64, &str)] = &[
            (" 1", 1, ""),
            ("\t1", 1, ""),
            ("\x0b1", 1, ""),
            ("+1", 1, ""),
            ("-1", u64::MAX, ""),
            ("-0", 0, ""),
            ("01", 1, ""),
            ("1x", 1, "x"),
            ("1 ", 1, " "),
            ("", 0, ""),
            (" ", 0, " "),
            ("+-1", 0, "+-1"),
            ("+ 1", 0, "+ 1"),
            ("18446744073709551616", u64::MAX, ""),
        ];
        for (text, value, rest) in cases {
            let (v, read) = ascii_strtoull(text);
            assert_eq!((v, &text[read..]), (*value, *rest), "{text:?}");
        }
    }

    #[test]
    fn lists_and_escapes() {
        assert_eq!(split_list("a;b\\;c;").unwrap(), vec!["a", "b;c"]);
        assert!(check("1; 2;3;", ValueType::IntList).is_ok());
        assert!(check("1;;2", ValueType::IntList).is_err());
        assert!(check("0.1 ;0.2", ValueType::DoubleList).is_err());
        assert!(check("", ValueType::IntList).is_ok());
        assert_eq!(parse_string("a\\sb").unwrap(), "a b");
        assert!(parse_string("c:\\dir").is_err());
    }
}
