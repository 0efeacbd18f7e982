//! Structure-aware fuzzing of every parser dslint runs on user input.
//!
//! Random bytes almost never form YAML or shell structure, so each target
//! generates documents from the format's own tokens (keys, separators,
//! indentation, quotes, brackets, comments, multibyte characters, line
//! endings…) with proptest, and checks properties that must hold for any
//! input:
//! - nothing panics: parsing, and for config files the whole check (rules,
//!   rendering the findings, applying every fix);
//! - the document prints back from its parts to the input
//!   (`Document::render`), every span sits on character boundaries;
//! - for the shell lexer, word spans are ordered and a word without quotes or
//!   escapes is its own bytes; `nsys wrap` only inserts.
//!
//! Every input that ever failed is kept under `testdata/fuzz/TARGET/` and
//! replayed by `regression_corpus_replays`. When a run fails, the shrunk
//! input is written to `target/fuzz-found/TARGET/` (and printed): read it,
//! fix the bug, then move it into `testdata/fuzz/TARGET/` with a name that
//! says what it exercises.
//!
//! Case counts: each target runs `Target::cases` cases (a few seconds in
//! CI); `DSLINT_FUZZ_CASES=100000 cargo test --profile ci --test fuzz` runs
//! longer, `PROPTEST_RNG_SEED=N` repeats a run.
//!
//! ## Adding a parser (protobuf definitions, …)
//! 1. Add `targets/NAME.rs` with a `pub fn document() -> BoxedStrategy<String>`
//!    built from `grammar`'s pieces (`pick`, `word`, `lines`, `eol`…): list
//!    the format's tokens, including the ones that break it (an unclosed
//!    quote or bracket, a stray separator), and weight the common ones.
//! 2. Write `pub fn check(input: &str) -> Result<(), String>` with the
//!    properties above that apply (`checks::spans_on_boundaries` for spans).
//! 3. Add a `Target` to `TARGETS`, a `#[test]` calling `fuzz(&TARGET)`, and
//!    an empty `testdata/fuzz/NAME/` with a `.gitkeep`.

#[path = "../support/mod.rs"]
mod support;

mod checks;
mod grammar;
mod targets;

use std::path::{Path, PathBuf};

use proptest::strategy::BoxedStrategy;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};

pub struct Target {
    /// The folder under testdata/fuzz/ holding its regression inputs.
    pub name: &'static str,
    pub document: fn() -> BoxedStrategy<String>,
    pub check: fn(&str) -> Result<(), String>,
    /// Cases per run in CI.
    pub cases: u32,
}

const YAML: Target = Target {
    name: "yaml",
    document: targets::yaml::document,
    check: targets::yaml::check,
    cases: 3000,
};
const KEYFILE: Target = Target {
    name: "keyfile",
    document: targets::keyfile::document,
    check: targets::keyfile::check,
    cases: 3000,
};
const SHELL: Target = Target {
    name: "shell",
    document: targets::shell::document,
    check: targets::shell::check,
    cases: 3000,
};

const LAUNCH: Target = Target {
    name: "launch",
    document: targets::launch::document,
    check: targets::launch::check,
    cases: 2000,
};

const PBTXT: Target = Target {
    name: "pbtxt",
    document: targets::pbtxt::document,
    check: targets::pbtxt::check,
    cases: 3000,
};

const CONTAINERS: Target = Target {
    name: "containers",
    document: targets::containers::document,
    check: targets::containers::check,
    cases: 3000,
};

const C_KEYS: Target = Target {
    name: "c_keys",
    document: targets::c_keys::document,
    check: targets::c_keys::check,
    cases: 3000,
};

const TARGETS: &[&Target] = &[&YAML, &KEYFILE, &SHELL, &PBTXT, &LAUNCH, &CONTAINERS, &C_KEYS];

/// Run a target's generator through its checks; on a failure, save and
/// print the shrunk input.
fn fuzz(target: &Target) {
    let cases = std::env::var("DSLINT_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(target.cases);
    quiet_panics_while_fuzzing();
    FUZZING.set(true);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&(target.document)(), |input| {
        (target.check)(&input).map_err(TestCaseError::fail)
    });
    FUZZING.set(false);
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, input)) => {
            let saved = save_found(target.name, &input);
            panic!(
                "{}: {why}\ninput {input:?}\nsaved to {} (move it into testdata/fuzz/{}/ once fixed)",
                target.name,
                saved.display(),
                target.name
            );
        }
        Err(e) => panic!("{}: {e}", target.name),
    }
}

thread_local! {
    static FUZZING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A panic while a fuzz target runs is caught and reported by proptest with
/// its message; printing it too, once per shrinking step, buries the
/// report. Panics elsewhere print as usual.
fn quiet_panics_while_fuzzing() {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !FUZZING.get() {
                default(info);
            }
        }));
    });
}

fn save_found(target: &str, input: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-found").join(target);
    std::fs::create_dir_all(&dir).unwrap();
    let name = dslint::output::fingerprint::fnv1a(&[input]);
    let path = dir.join(format!("{name}.txt"));
    std::fs::write(&path, input).unwrap();
    path
}

#[test]
fn yaml() {
    fuzz(&YAML);
}

#[test]
fn keyfile() {
    fuzz(&KEYFILE);
}

#[test]
fn shell() {
    fuzz(&SHELL);
}

#[test]
fn launch() {
    fuzz(&LAUNCH);
}

#[test]
fn pbtxt() {
    fuzz(&PBTXT);
}

#[test]
fn containers() {
    fuzz(&CONTAINERS);
}

#[test]
fn c_keys() {
    fuzz(&C_KEYS);
}

/// Every input a fuzz run ever failed on still passes its checks.
#[test]
fn regression_corpus_replays() {
    let mut replayed = 0;
    let mut failures = Vec::new();
    for target in TARGETS {
        let dir = Path::new("testdata/fuzz").join(target.name);
        assert!(dir.is_dir(), "{} is missing", dir.display());
        for file in support::files_under(&dir) {
            if file.file_name().is_some_and(|n| n == ".gitkeep") {
                continue;
            }
            let input = std::fs::read_to_string(&file).unwrap();
            let outcome = std::panic::catch_unwind(|| (target.check)(&input));
            match outcome {
                Ok(Ok(())) => {}
                Ok(Err(why)) => failures.push(format!("{}: {why}", file.display())),
                Err(_) => failures.push(format!("{}: panicked", file.display())),
            }
            replayed += 1;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(replayed >= 3, "only {replayed} regression inputs");
}
