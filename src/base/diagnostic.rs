//! A finding: its rule (and so its code and severity), where, what was
//! found, what was expected and why, and the fix if there is one.

use std::borrow::Cow;

use serde::Serialize;

use crate::base::edit::Fix;
use crate::base::rule::{Rule, When};
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
/// the join of the lists), so what is seldom there is boxed and the texts
/// are held without slack: 144 bytes a finding, not 208 (a size test below
/// fails if it grows).
#[derive(Debug, Clone)]
pub struct Diagnostic {
    /// Private, with the severity: both come from the rule registry.
    rule: Rule,
    severity: Severity,
    pub file: FileId,
    pub span: Span,
    pub message: String,
    /// The value dslint expects, when there is one.
    pub expected: Option<Box<str>>,
    /// Why: the reasoning or the inputs the expected value came from
    /// (nearly always a fixed text: borrowed, not a copy a finding).
    pub why: Option<Cow<'static, str>>,
    /// Other places this finding involves (DS701 names two files).
    pub related: Vec<(FileId, Span)>,
    /// The message as it reads at the first related place, for when the
    /// finding is reported there (a cross-file finding shown on the side of
    /// the file named on the command line); `None`: it reads the same.
    pub message_at_related: Option<Box<str>>,
    pub fix: Option<Box<Fix>>,
}

impl Diagnostic {
    /// A finding of `rule` at its default severity.
    pub fn new(rule: Rule, file: FileId, span: Span, message: impl Into<String>) -> Self {
        let mut message = message.into();
        // A formatted message's buffer has room to spare (`format!`
        // guesses its length, then doubles).
        message.shrink_to_fit();
        Diagnostic {
            rule,
            severity: rule.info().severity,
            file,
            span,
            message,
            expected: None,
            why: None,
            related: Vec::new(),
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
    pub fn expected(mut self, e: impl Into<String>) -> Self {
        self.expected = Some(e.into().into_boxed_str());
        self
    }
    pub fn why(mut self, w: impl Into<Cow<'static, str>>) -> Self {
        self.why = Some(w.into());
        self
    }
    pub fn related(mut self, file: FileId, span: Span) -> Self {
        // Room for exactly this place: a push into an empty vector makes
        // room for four (96 bytes, 24 used), held with the finding to the
        // end of a run, and nearly every finding relates one place.
        self.related.reserve_exact(1);
        self.related.push((file, span));
        self
    }
    /// How the message reads at the first related place (see the field).
    pub fn message_at_related(mut self, m: impl Into<String>) -> Self {
        self.message_at_related = Some(m.into().into_boxed_str());
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every finding is held to the end of a run: it must not grow back.
    #[test]
    fn a_finding_is_144_bytes() {
        assert_eq!(std::mem::size_of::<Diagnostic>(), 144);
    }

    /// A related place costs its own 24 bytes, not a vector of four.
    #[test]
    fn related_places_take_exactly_their_room() {
        let d = Diagnostic::new(Rule::DuplicateKey, 0, 0..1, "m").related(1, 2..3);
        assert_eq!((d.related.len(), d.related.capacity()), (1, 1));
        let d = d.related(2, 4..5);
        assert_eq!(d.related, [(1, 2..3), (2, 4..5)]);
        assert_eq!(d.related.capacity(), 2);
    }
}
