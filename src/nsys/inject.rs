//! `dslint nsys inject --fastdeploy`: make FastDeploy's model runner open
//! and close the profiler window (`nsys profile -c cudaProfilerApi` records
//! between the two calls) around a range of model-execution steps.

use std::path::{Path, PathBuf};

pub const RUNNER: &str = "fastdeploy/worker/gpu_model_runner.py";
const BEGIN: &str = "# >>> dslint nsys";
const END: &str = "# <<< dslint nsys";
const START_CALLS: &[&str] = &[
    "nvprof_start(",
    "cudaProfilerStart(",
    "cudaProfilerStart()",
    "profiler_start(",
];
const STOP_CALLS: &[&str] = &["nvprof_stop(", "cudaProfilerStop(", "profiler_stop("];

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Start and stop calls that run.
    Active {
        start_line: usize,
        stop_line: usize,
    },
    /// Calls that are commented out or under `if False:`.
    Disabled {
        lines: Vec<usize>,
    },
    Missing,
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Is line `i` under an `if False:` (or `if 0:`) guard?
fn guarded(lines: &[&str], i: usize) -> bool {
    let my = indent(lines[i]);
    let mut want = my;
    for j in (0..i).rev() {
        let l = lines[j];
        if l.trim().is_empty() || l.trim_start().starts_with('#') {
            continue;
        }
        let ind = indent(l);
        if ind < want {
            let t = l.trim();
            if t == "if False:" || t == "if 0:" {
                return true;
            }
            want = ind;
            if ind == 0 {
                break;
            }
        }
    }
    false
}

pub fn state(src: &str) -> State {
    let lines: Vec<&str> = src.lines().collect();
    let find = |calls: &[&str], active: bool| -> Option<usize> {
        lines.iter().enumerate().find_map(|(i, l)| {
            let t = l.trim_start();
            let has = calls.iter().any(|c| l.contains(c));
            let off = t.starts_with('#') || guarded(&lines, i);
            (has && off != active).then_some(i + 1)
        })
    };
    match (find(START_CALLS, true), find(STOP_CALLS, true)) {
        (Some(a), Some(b)) => State::Active {
            start_line: a,
            stop_line: b,
        },
        _ => {
            let mut off: Vec<usize> = lines
                .iter()
                .enumerate()
                .filter(|(i, l)| {
                    START_CALLS.iter().chain(STOP_CALLS).any(|c| l.contains(c))
                        && (l.trim_start().starts_with('#') || guarded(&lines, *i))
                })
                .map(|(i, _)| i + 1)
                .collect();
            off.dedup();
            if off.is_empty() {
                State::Missing
            } else {
                State::Disabled { lines: off }
            }
        }
    }
}

/// The model-execution dispatch: in `def execute_model`, the first
/// statement calling `self.model(`; returns (first line, last line) indexes.
fn dispatch(lines: &[&str]) -> Option<(usize, usize)> {
    let def = lines
        .iter()
        .position(|l| l.trim_start().starts_with("def execute_model("))?;
    let def_indent = indent(lines[def]);
    let mut i = def + 1;
    while i < lines.len() {
        let l = lines[i];
        if !l.trim().is_empty() && indent(l) <= def_indent && !l.trim_start().starts_with('#') {
            return None;
        }
        if l.contains("self.model(") && !l.trim_start().starts_with('#') {
            // The statement ends where its brackets close.
            let mut depth: i64 = 0;
            let mut j = i;
            loop {
                for c in lines[j].chars() {
                    match c {
                        '(' | '[' | '{' => depth += 1,
                        ')' | ']' | '}' => depth -= 1,
                        _ => {}
                    }
                }
                if depth <= 0 || j + 1 >= lines.len() {
                    return Some((i, j));
                }
                j += 1;
            }
        }
        i += 1;
    }
    None
}

pub fn inject(src: &str, start_step: u32, stop_step: u32) -> Result<String, String> {
    if stop_step <= start_step {
        return Err("--stop-step must be after --start-step".into());
    }
    let eol = if src.contains("\r\n") { "\r\n" } else { "\n" };
    let lines: Vec<&str> = src.lines().collect();
    let (first, last) = dispatch(&lines)
        .ok_or("no `self.model(` call inside `def execute_model(`: cannot place the profiler window")?;
    let pad = " ".repeat(indent(lines[first]));
    let before = [
        format!("{pad}{BEGIN}: profiler window around model steps (added by `dslint nsys inject`)"),
        format!("{pad}if not hasattr(self, \"_dslint_nsys_step\"):"),
        format!("{pad}    self._dslint_nsys_step = 0"),
        format!("{pad}if self._dslint_nsys_step == {start_step}:"),
        format!("{pad}    paddle.base.core.nvprof_start()"),
        format!("{pad}{END}"),
    ];
    let after = [
        format!("{pad}{BEGIN}"),
        format!("{pad}if self._dslint_nsys_step == {stop_step}:"),
        format!("{pad}    paddle.base.core.nvprof_stop()"),
        format!("{pad}self._dslint_nsys_step += 1"),
        format!("{pad}{END}"),
    ];
    let mut out: Vec<String> = Vec::new();
    let needs_import = !src.lines().any(|l| {
        l.trim() == "import paddle" || l.trim().starts_with("import paddle ") || l.trim() == "import paddle.base"
    });
    for (i, l) in lines.iter().enumerate() {
        if i == 0 && needs_import {
            out.push(format!("import paddle  {BEGIN}: for nvprof_start/nvprof_stop"));
        }
        if i == first {
            out.extend(before.iter().cloned());
        }
        out.push(l.to_string());
        if i == last {
            out.extend(after.iter().cloned());
        }
    }
    let mut text = out.join(eol);
    if src.ends_with('\n') {
        text.push_str(eol);
    }
    Ok(text)
}

/// `dslint nsys inject --fastdeploy`: report the runner's state and, when
/// the calls are missing, back it up (`.py.bak`, once) and inject them.
pub fn inject_fastdeploy(
    dir: Option<&Path>,
    script: Option<&Path>,
    start_step: u32,
    stop_step: u32,
    diff_only: bool,
) -> Result<String, String> {
    let runner = locate(dir, script)?;
    let src = crate::files::read::read_text(&runner, crate::files::read::MAX_FILE_BYTES)?;
    match state(&src) {
        State::Active { start_line, stop_line } => Ok(format!(
            "{}: profiler calls present and active (start line {start_line}, stop line {stop_line}); nothing to change\n",
            runner.display()
        )),
        State::Disabled { lines } => Ok(format!(
            "{}: profiler calls present but disabled (commented out or under `if False:`) on lines {}; enable them by hand, nothing changed\n",
            runner.display(),
            lines.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(", ")
        )),
        State::Missing => {
            let out = inject(&src, start_step, stop_step)?;
            let shown = crate::fix::diff::unified(&runner, &src, &out, false);
            if diff_only {
                return Ok(format!("{}: profiler calls missing\n{shown}", runner.display()));
            }
            let bak = runner.with_extension("py.bak");
            let (Some(name), Some(bak_name)) = (
                runner.file_name().and_then(|n| n.to_str()),
                bak.file_name().and_then(|n| n.to_str()),
            ) else {
                return Err(format!("{}: not a file name dslint writes", runner.display()));
            };
            let dir = crate::files::write::Dir::open(runner.parent().unwrap_or(Path::new(".")))?;
            // The backup is made once, exclusively: an older one (or
            // anything planted at its name) is kept as it is, never written
            // through.
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&runner).map_or(0o644, |m| m.permissions().mode()) & 0o777;
            if !dir.create_new(bak_name, src.as_bytes(), mode)?
                && !std::fs::symlink_metadata(&bak).is_ok_and(|m| m.file_type().is_file())
            {
                return Err(format!(
                    "{} exists and is not a regular file; not used as the backup, nothing changed",
                    bak.display()
                ));
            }
            dir.replace_checked(name, src.as_bytes(), out.as_bytes())?;
            Ok(format!(
                "{shown}{}: profiler window injected (steps {start_step} to {stop_step}); original in {}\n",
                runner.display(),
                bak.display()
            ))
        }
    }
}

/// Where the runner is: DIR (a checkout, a site-packages folder or the
/// package itself), else the `PYTHONPATH` a launch script exports, else
/// the installed package's location as pip reports it.
pub fn locate(dir: Option<&Path>, script: Option<&Path>) -> Result<PathBuf, String> {
    let try_dir = |d: &Path| -> Option<PathBuf> {
        [
            d.join(RUNNER),
            d.join("worker/gpu_model_runner.py"),
            d.join("gpu_model_runner.py"),
        ]
        .into_iter()
        .find(|p| p.is_file())
    };
    if let Some(d) = dir {
        return try_dir(d).ok_or_else(|| format!("{}: no {RUNNER} there", d.display()));
    }
    if let Some(s) = script {
        let text = crate::files::read::read_text(s, crate::files::read::MAX_FILE_BYTES)?;
        for l in text.lines() {
            let t = l.trim().trim_start_matches("export ").trim();
            if let Some(v) = t.strip_prefix("PYTHONPATH=") {
                for p in v.trim_matches('"').trim_matches('\'').split(':') {
                    if let Some(found) = try_dir(Path::new(p)) {
                        return Ok(found);
                    }
                }
            }
        }
    }
    for pkg in ["fastdeploy-gpu", "fastdeploy"] {
        if let Ok(out) = std::process::Command::new("python3")
            .args(["-m", "pip", "show", pkg])
            .output()
        {
            let text = String::from_utf8_lossy(&out.stdout);
            if let Some(loc) = text.lines().find_map(|l| l.strip_prefix("Location:")) {
                if let Some(found) = try_dir(Path::new(loc.trim())) {
                    return Ok(found);
                }
            }
        }
    }
    Err(format!(
        "cannot find {RUNNER}: pass its folder (--fastdeploy DIR) or a launch script that exports PYTHONPATH (--script)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUNNER_SRC: &str = "import paddle\n\nclass GPUModelRunner:\n    def execute_model(self, inputs):\n        self.prepare(inputs)\n        model_output = self.model(\n            ids=inputs.ids,\n        )\n        return model_output\n";

    #[test]
    fn three_states_and_idempotence() {
        assert_eq!(state(RUNNER_SRC), State::Missing);
        let out = inject(RUNNER_SRC, 40, 60).unwrap();
        assert!(matches!(state(&out), State::Active { .. }), "{out}");
        let disabled = RUNNER_SRC.replace("        self.prepare(inputs)\n", "        if False:\n            paddle.base.core.nvprof_start()\n        # paddle.base.core.nvprof_stop()\n");
        assert!(matches!(state(&disabled), State::Disabled { .. }));
        assert!(out.contains("        model_output = self.model(\n            ids=inputs.ids,\n        )\n        # >>> dslint nsys\n        if self._dslint_nsys_step == 60:"), "{out}");
    }
}
