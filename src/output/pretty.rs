//! Pretty JSON made on all threads: the findings of `--format json` and
//! SARIF's results are serialized a run at a time, each run to bytes of its
//! own on a rayon thread, and written in order with the array's framing
//! (the brackets, the comma between runs) by the calling thread. The bytes
//! are those `serde_json::Serializer::pretty` writes of the whole array:
//! [`Pretty`] is its formatter, started at the depth the array sits at.

use std::io::{self, Write};

use rayon::prelude::*;
use serde::Serialize;
use serde_json::ser::Formatter;

use super::acts_on_terminal;

/// Findings serialized to one buffer by one thread.
pub(crate) const RUN: usize = 256;

/// Runs made at a time: only a batch of the output is ever held (a SARIF
/// result is ~1.2 KB in the benchmark's trees: ~5 MB a batch; 64 runs a
/// batch, as the human output makes, raised a 10k-file check's peak by
/// 15 MiB).
const BATCH: usize = RUN * 16;

/// `serde_json::ser::PrettyFormatter` (two-space indent), started at
/// `depth` levels of indent instead of none: a value serialized with it is
/// the bytes the pretty serializer writes of it as an element or a field
/// value that many levels down.
pub(crate) struct Pretty {
    depth: usize,
    has_value: bool,
}

impl Pretty {
    pub(crate) fn at(depth: usize) -> Pretty {
        Pretty {
            depth,
            has_value: false,
        }
    }
}

/// `depth` levels of two-space indent.
pub(crate) fn indent<W: ?Sized + Write>(w: &mut W, depth: usize) -> io::Result<()> {
    const SPACES: &[u8] = b"                                                                ";
    let mut left = depth * 2;
    while left > 0 {
        let k = left.min(SPACES.len());
        w.write_all(&SPACES[..k])?;
        left -= k;
    }
    Ok(())
}

impl Pretty {
    /// `[` or `{`: one level deeper, nothing in it yet.
    fn open<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    /// `]` or `}`: on a line of its own unless the value is empty.
    fn close<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            w.write_all(b"\n")?;
            indent(w, self.depth)?;
        }
        w.write_all(bracket)
    }

    /// Before an element or a key: a new line (after a comma but for the
    /// first) and the indent.
    fn next<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        w.write_all(if first { b"\n" } else { b",\n" })?;
        indent(w, self.depth)
    }
}

/// `PrettyFormatter`'s methods, at the depth it was started at.
impl Formatter for Pretty {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.next(w, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.next(w, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    /// A run of a string that serde_json writes as it is (it escapes C0,
    /// `"` and `\\`), with what a terminal acts on besides
    /// ([`acts_on_terminal`]: DEL, C1, bidirectional controls) written as
    /// `\uXXXX`: JSON output is read on terminals and review pages too, and
    /// a JSON reader gets the same string.
    fn write_string_fragment<W: ?Sized + Write>(&mut self, w: &mut W, fragment: &str) -> io::Result<()> {
        // Nearly every fragment is ASCII below DEL: one scan, no decoding.
        if !fragment.bytes().any(|b| b >= 0x7f) {
            return w.write_all(fragment.as_bytes());
        }
        let mut from = 0;
        for (i, c) in fragment.char_indices() {
            if acts_on_terminal(c) {
                w.write_all(&fragment.as_bytes()[from..i])?;
                // DEL, C1 and the bidirectional controls are all in the
                // Basic Multilingual Plane: four hex digits.
                write!(w, "\\u{:04x}", c as u32)?;
                from = i + c.len_utf8();
            }
        }
        w.write_all(&fragment.as_bytes()[from..])
    }
}

/// `value` as pretty JSON (no final newline), as
/// `serde_json::to_string_pretty` writes it but for the characters
/// [`Pretty`] escapes besides; empty on a serializer error.
pub(crate) fn to_string(value: &impl Serialize) -> String {
    let mut out = Vec::new();
    if self::value(&mut out, 0, value).is_err() {
        return String::new();
    }
    // serde_json writes UTF-8, and the escapes are ASCII.
    String::from_utf8(out).unwrap_or_default()
}

/// `value` as a pretty field value or element `depth` levels down.
pub(crate) fn value<W: ?Sized + Write>(w: &mut W, depth: usize, value: &impl Serialize) -> io::Result<()> {
    value
        .serialize(&mut serde_json::Serializer::with_formatter(w, Pretty::at(depth)))
        .map_err(io::Error::from)
}

/// One element of an array whose elements sit `depth` levels down, as the
/// pretty serializer writes it after an element before it: `,`, a new
/// line, the indent, the value. (The array's first element has no comma:
/// [`write_array`] drops it.) Writing to memory fails only on a serializer
/// error, which records of strings and numbers do not raise.
pub(crate) fn element(out: &mut Vec<u8>, depth: usize, v: &impl Serialize) {
    out.extend_from_slice(b",\n");
    let _ = indent(out, depth);
    let _ = value(out, depth, v);
}

/// A pretty JSON array whose elements sit `depth` levels down: `lead`
/// (elements already made, each as [`element`] writes it), then those of
/// `items`, made a run of [`RUN`] at a time on all threads by `run` (each
/// element as [`element`] writes it) and written in order, a batch of runs
/// at a time. `batch` makes what the runs of one batch share. The same
/// bytes on any number of threads.
pub(crate) fn write_array<T: Sync, C: Sync>(
    w: &mut dyn Write,
    depth: usize,
    lead: &[u8],
    items: &[T],
    batch: impl Fn(&[T]) -> C,
    run: impl Fn(&C, &[T]) -> Vec<u8> + Sync,
) -> io::Result<()> {
    w.write_all(b"[")?;
    let mut empty = true;
    let mut put = |w: &mut dyn Write, bytes: &[u8]| -> io::Result<()> {
        if let Some(rest) = bytes.strip_prefix(b",") {
            // The first element follows the bracket without a comma.
            w.write_all(if empty { rest } else { bytes })?;
            empty = false;
        }
        Ok(())
    };
    put(w, lead)?;
    for items in items.chunks(BATCH) {
        let shared = batch(items);
        let runs: Vec<Vec<u8>> = items.par_chunks(RUN).map(|r| run(&shared, r)).collect();
        for r in &runs {
            put(w, r)?;
        }
    }
    if !empty {
        w.write_all(b"\n")?;
        indent(w, depth - 1)?;
    }
    w.write_all(b"]")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::pretty::sample;

    #[derive(Serialize)]
    struct Rec {
        a: Vec<u32>,
        b: Option<Vec<String>>,
        c: std::collections::BTreeMap<String, Vec<u8>>,
        d: (),
    }

    fn recs(n: usize) -> Vec<Rec> {
        (0..n)
            .map(|i| Rec {
                a: (0..(i % 3) as u32).collect(),
                b: (i % 2 == 0).then(|| vec![format!("x\"{i}\n\u{1b}é"); i % 4]),
                c: (0..(i % 3)).map(|k| (format!("k{k}"), vec![k as u8; k])).collect(),
                d: (),
            })
            .collect()
    }

    /// Strings and keys are serde_json's pretty bytes but for DEL, C1
    /// and the bidirectional controls, escaped as `\uXXXX` (at a
    /// fragment's start, middle and end, beside serde_json's own escapes);
    /// what a JSON reader reads back is the same.
    #[test]
    fn what_a_terminal_acts_on_is_escaped() {
        let v = std::collections::BTreeMap::from([(
            "k\u{9b}",
            vec!["\u{7f}a\"\u{1b}é\u{85}\u{202e}b\u{2069}", "plain é ✓", "\u{9f}"],
        )]);
        let got = to_string(&v);
        assert_eq!(
            got,
            "{\n  \"k\\u009b\": [\n    \"\\u007fa\\\"\\u001bé\\u0085\\u202eb\\u2069\",\n    \"plain é ✓\",\n    \"\\u009f\"\n  ]\n}"
        );
        let back: std::collections::BTreeMap<String, Vec<String>> = serde_json::from_str(&got).unwrap();
        assert_eq!(format!("{back:?}"), format!("{v:?}"));
        for n in [0, 1, 5] {
            assert_eq!(to_string(&recs(n)), serde_json::to_string_pretty(&recs(n)).unwrap());
        }
    }

    /// What the array writer writes, at every depth and any number of
    /// elements (none, fewer than a run, more than a batch), is what the
    /// pretty serializer writes of the whole array that many levels down
    /// (as the last element of nested arrays), on 1 thread and on 4.
    #[test]
    fn arrays_are_what_the_pretty_serializer_writes() {
        for n in [0, 1, 2, RUN - 1, RUN + 1, BATCH + RUN + 3] {
            let all = recs(n);
            for depth in 1..5 {
                for lead in [0, 1, 2] {
                    let lead = lead.min(n);
                    let mut head = Vec::new();
                    for r in &all[..lead] {
                        element(&mut head, depth, r);
                    }
                    let write = || {
                        let mut out = Vec::new();
                        let batches = std::cell::Cell::new(0);
                        write_array(
                            &mut out,
                            depth,
                            &head,
                            &all[lead..],
                            |_| batches.set(batches.get() + 1),
                            |_, run| {
                                let mut b = Vec::new();
                                for r in run {
                                    element(&mut b, depth, r);
                                }
                                b
                            },
                        )
                        .unwrap();
                        assert_eq!(batches.get(), (n - lead).div_ceil(BATCH));
                        out
                    };
                    let one = sample::on_1_and_4_threads(|| String::from_utf8(write()).unwrap());
                    // The same array nested `depth - 1` levels down, each
                    // level an array with a marker before it.
                    let mut whole = serde_json::to_value(&all).unwrap();
                    for _ in 1..depth {
                        whole = serde_json::Value::Array(vec![serde_json::json!("mark"), whole]);
                    }
                    let pretty = serde_json::to_string_pretty(&whole).unwrap();
                    let at = pretty.rfind("\"mark\",\n").map_or(0, |i| i + 8 + 2 * (depth - 1));
                    let close: String = (0..depth - 1).rev().map(|k| format!("\n{}]", "  ".repeat(k))).collect();
                    assert!(pretty.ends_with(&close), "{pretty:?}");
                    let want = &pretty[at..pretty.len() - close.len()];
                    assert_eq!(one, want, "{n} {depth} {lead}");
                }
            }
        }
    }
}

/// A workspace of many findings for the output tests: more than a batch of
/// runs, in files whose names and values need escaping, with fixes,
/// related locations and findings in several files (the examples, a
/// pipeline with cross-file findings and fixes), and problems.
#[cfg(test)]
pub(crate) mod sample {
    use std::path::Path;

    use crate::base::diagnostic::{Diagnostic, Severity};
    use crate::model::workspace::Workspace;
    use crate::output::FileProblem;

    pub(crate) struct Sample {
        pub ws: Workspace,
        pub diags: Vec<Diagnostic>,
    }

    impl Sample {
        pub(crate) fn problems(&self) -> Vec<FileProblem<'_>> {
            vec![
                FileProblem {
                    path: Path::new("./bad \"name\" 100%.txt"),
                    code: "DS005",
                    severity: Severity::Warning,
                    message: "not UTF-8: \u{1b}[2J skipped\n",
                },
                FileProblem {
                    path: Path::new("/abs/é.txt"),
                    code: "DS005",
                    severity: Severity::Warning,
                    message: "binary",
                },
            ]
        }
    }

    pub(crate) fn many_findings() -> Sample {
        let mut ws = Workspace::default();
        for name in [
            "deepstream_app_4cam.txt",
            "config_infer_primary.txt",
            "config_infer_primary.yml",
            "config_infer_secondary_vehicletype.txt",
            "config_tracker_NvDCF_accuracy.yml",
            "deepstream_app_rtsp.yml",
        ] {
            let path = Path::new("testdata/examples").join(name);
            let text = std::fs::read_to_string(&path).unwrap();
            ws.read_text(&path, text);
        }
        // A key repeated in each (DS004 on every repeat), with values and
        // names that need escaping in JSON and in a URI.
        for (i, name) in ["./my configs/pgie 100%.txt", "pgie_\"q\"\\é.txt", "/tmp/x/pgie\t2.txt"]
            .into_iter()
            .enumerate()
        {
            let mut text = format!("[property]\ngie-unique-id={}\nonnx-file=m \"q\" \\ é.onnx\n", i + 1);
            for k in 0..6000 {
                text.push_str(&format!("batch-size={} # \"{k}\" \\ \u{1}\n", k % 7 + 1));
            }
            ws.read_text(Path::new(name), text);
        }
        let diags = crate::rules::check(&mut ws, None, crate::rules::context::Profile::Display).diagnostics;
        assert!(diags.len() > super::BATCH + super::RUN, "{}", diags.len());
        assert!(diags.iter().any(|d| d.fix.is_some()) && diags.iter().any(|d| !d.related.is_empty()));
        assert!(diags.iter().any(|d| d.expected.is_some()) && diags.iter().any(|d| d.why.is_some()));
        Sample { ws, diags }
    }

    /// `render` on 1 thread and on 4: the same bytes (returned).
    pub(crate) fn on_1_and_4_threads(render: impl Fn() -> String + Sync) -> String {
        let on = |n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
                .install(&render)
        };
        let one = on(1);
        assert!(one == on(4), "1 and 4 threads differ");
        one
    }
}
