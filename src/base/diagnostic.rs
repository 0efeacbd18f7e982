//! A finding: its rule (and so its code and severity), where, what was
//! found, what was expected and why, and the fix if there is one.

use std::borrow::Cow;

use serde::Serialize;

use crate::base::edit::Fix;
use crate::base::rule::{Rule, When};
use crate::base::shared::Shared;
use crate::base::{FileId, Span};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// Every finding of a run is held until the output (and a copy of each in
/// the join of the lists), so what is seldom there is boxed, the texts are
/// held without slack and the expected values (a few hundred distinct ones
/// among tens of thousands of findings) and the fixed `why` texts are
/// shared: 96 bytes a finding, not 208 (a size test below fails if it grows).
#[derive(Debug, Clone)]
pub struct Diagnostic {
    /// Private, with the severity: both come from the rule registry.
    rule: Rule,
    severity: Severity,
    pub file: FileId,
    pub span: Span,
    pub message: Box<str>,
    /// The value dslint expects, when there is one (a short one interned
    /// on the thread that made the finding: one allocation for the
    /// thousands of findings that expect `0`, not one each).
    pub expected: Option<Shared>,
    /// Why: the reasoning or the inputs the expected value came from
    /// (nearly always a fixed text: shared, made once a thread, not a copy
    /// a finding: [`Shared::of_static`]).
    pub why: Option<Shared>,
    /// Other places this finding involves (DS701 names two files): exactly
    /// their room, none when there are none.
    pub related: Box<[(FileId, Span)]>,
    /// The message as it reads at the first related place, for when the
    /// finding is reported there (a cross-file finding shown on the side of
    /// the file named on the command line); `None`: it reads the same.
    pub message_at_related: Option<Shared>,
    pub fix: Option<Box<Fix>>,
}

impl Diagnostic {
    /// A finding of `rule` at its default severity.
    pub fn new(rule: Rule, file: FileId, span: Span, message: impl Into<String>) -> Self {
        // A formatted message's buffer has room to spare (`format!`
        // guesses its length, then doubles): boxed, it has none.
        let message = message.into().into_boxed_str();
        Diagnostic {
            rule,
            severity: rule.info().severity,
            file,
            span,
            message,
            expected: None,
            why: None,
            related: Box::default(),
            message_at_related: None,
            fix: None,
        }
    }
    /// In situation `when` (if `applies`), the severity the registry
    /// declares for it.
    pub fn when(mut self, when: When, applies: bool) -> Self {
        if applies {
            self.severity = self.rule.info().severity_when(when);
        }
        self
    }
    pub fn rule(&self) -> Rule {
        self.rule
    }
    pub fn code(&self) -> &'static str {
        self.rule.code()
    }
    pub fn severity(&self) -> Severity {
        self.severity
    }
    pub fn expected(mut self, e: impl AsRef<str>) -> Self {
        self.expected = Some(Shared::interned(e.as_ref()));
        self
    }
    pub fn why(mut self, w: impl Into<Cow<'static, str>>) -> Self {
        self.why = Some(match w.into() {
            Cow::Borrowed(fixed) => Shared::of_static(fixed),
            Cow::Owned(made) => Shared::from(made),
        });
        self
    }
    pub fn related(self, file: FileId, span: Span) -> Self {
        self.related_all([(file, span)])
    }
    /// [`Diagnostic::related`] for each of `places`, in order (the places
    /// taken in one allocation: each `related` call copies those before).
    pub fn related_all(mut self, places: impl IntoIterator<Item = (FileId, Span)>) -> Self {
        add_related(&mut self.related, places);
        self
    }
    /// How the message reads at the first related place (see the field).
    pub fn message_at_related(mut self, m: impl AsRef<str>) -> Self {
        self.message_at_related = Some(Shared::from(m.as_ref()));
        self
    }
    pub fn fix(mut self, fix: Option<Fix>) -> Self {
        debug_assert!(
            fix.as_ref()
                .is_none_or(|f| self.rule.info().fix.allows(f.applicability)),
            "{} declares its fix as {}",
            self.code(),
            self.rule.info().fix.describe()
        );
        self.fix = fix.map(Box::new);
        self
    }
}

/// `places` after `related` (a finding's related places), in order, in an
/// allocation of exactly their room.
pub fn add_related(related: &mut Box<[(FileId, Span)]>, places: impl IntoIterator<Item = (FileId, Span)>) {
    let mut all = std::mem::take(related).into_vec();
    all.extend(places);
    *related = all.into_boxed_slice();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every finding is held to the end of a run: it must not grow back.
    #[test]
    fn a_finding_is_96_bytes() {
        assert_eq!(std::mem::size_of::<Diagnostic>(), 96);
    }

    /// Related places are added in order, whether one at a time or many.
    #[test]
    fn related_places_are_added_in_order() {
        let d = Diagnostic::new(Rule::DuplicateKey, 0, 0..1, "m").related(1, 2..3);
        assert_eq!(*d.related, [(1, 2..3)]);
        let d = d.related(2, 4..5).related_all([(3, 6..7), (4, 8..9)]);
        assert_eq!(*d.related, [(1, 2..3), (2, 4..5), (3, 6..7), (4, 8..9)]);
    }

    /// Findings that expect the same short value made on one thread share
    /// its text.
    #[test]
    fn expected_values_are_shared() {
        let a = Diagnostic::new(Rule::DuplicateKey, 0, 0..1, "m").expected("0");
        let b = Diagnostic::new(Rule::DuplicateKey, 1, 0..1, "n").expected(String::from("0"));
        let (a, b) = (a.expected.unwrap(), b.expected.unwrap());
        assert_eq!((a.as_str(), b.as_str()), ("0", "0"));
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
    }

    /// A fixed `why` is made once a thread; a made one is the finding's.
    #[test]
    fn fixed_whys_are_shared() {
        const WHY: &str = "a fixed reason";
        let a = Diagnostic::new(Rule::DuplicateKey, 0, 0..1, "m").why(WHY);
        let b = Diagnostic::new(Rule::DuplicateKey, 1, 0..1, "n").why(WHY);
        let c = Diagnostic::new(Rule::DuplicateKey, 2, 0..1, "o").why(String::from(WHY));
        let (a, b, c) = (a.why.unwrap(), b.why.unwrap(), c.why.unwrap());
        assert_eq!((a.as_str(), b.as_str(), c.as_str()), (WHY, WHY, WHY));
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
        assert!(!std::ptr::eq(a.as_str(), c.as_str()));
    }
}
