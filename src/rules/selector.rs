//! Rule selectors, as `--select`/`--ignore` and `select`/`ignore` in
//! `dslint.toml` take them: a full code (`DS701`), a prefix that selects a
//! family (`DS7`), or `ALL`. Both places validate with this one function,
//! so a typo is an error with a suggestion wherever it is written, never a
//! selector that quietly matches nothing (or, empty, everything).

use crate::base::rule::RULES;
use crate::model::keys::edit_distance;

/// A valid selector, trimmed; else why not, with a suggestion.
pub fn parse(raw: &str) -> Result<String, String> {
    let s = raw.trim();
    if s.is_empty() {
        return Err("empty rule code (a stray comma?)".to_string());
    }
    if s == "ALL" || RULES.iter().any(|r| r.code.starts_with(s)) {
        return Ok(s.to_string());
    }
    Err(format!("`{s}` is no rule code or prefix{}", suggestion(s)))
}

/// ` (did you mean `DS701`?)`, or a pointer to `dslint rules`.
fn suggestion(s: &str) -> String {
    let upper = s.to_ascii_uppercase();
    if upper == "ALL" || RULES.iter().any(|r| r.code.starts_with(&upper)) {
        return format!(" (codes are upper case: did you mean `{upper}`?)");
    }
    let lower = s.to_ascii_lowercase();
    if let Some(r) = RULES.iter().find(|r| r.name == lower) {
        return format!(" (`{}` is the name of {}: did you mean `{}`?)", r.name, r.code, r.code);
    }
    let by_code = RULES
        .iter()
        .map(|r| (edit_distance(r.code, &upper), r))
        .filter(|(d, _)| *d <= 1);
    let by_name = RULES
        .iter()
        .map(|r| (edit_distance(r.name, &lower), r))
        .filter(|(d, _)| *d <= 3);
    match by_code.chain(by_name).min_by_key(|(d, _)| *d) {
        Some((_, r)) => format!(" (did you mean `{}`, {}?)", r.code, r.name),
        None => " (see `dslint rules`)".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_prefixes_and_all_pass_typos_get_suggestions() {
        for ok in ["DS701", "DS7", "DS", "ALL"] {
            assert_eq!(parse(ok), Ok(ok.to_string()));
        }
        assert_eq!(parse(" DS7 "), Ok("DS7".to_string()));
        for (bad, why) in [
            ("", "empty rule code (a stray comma?)"),
            (
                "ds1",
                "`ds1` is no rule code or prefix (codes are upper case: did you mean `DS1`?)",
            ),
            (
                "all",
                "`all` is no rule code or prefix (codes are upper case: did you mean `ALL`?)",
            ),
            (
                "batch-mismatch",
                "`batch-mismatch` is no rule code or prefix (`batch-mismatch` is the name of DS701: did you mean `DS701`?)",
            ),
            (
                "DS7011",
                "`DS7011` is no rule code or prefix (did you mean `DS701`, batch-mismatch?)",
            ),
            (
                "batch-mismach",
                "`batch-mismach` is no rule code or prefix (did you mean `DS701`, batch-mismatch?)",
            ),
            ("E501", "`E501` is no rule code or prefix (see `dslint rules`)"),
        ] {
            assert_eq!(parse(bad), Err(why.to_string()), "{bad:?}");
        }
    }
}
