//! `dslint nsys wrap`: a copy of a launch script whose server runs under
//! `nsys profile`, as nsys's direct child. The original bytes stay; a block
//! after the shebang (or after the script's own `NSYS_OUTPUT_DIR=` line)
//! defines the output path and `NSYS_CMD`, and `${NSYS_CMD} ` goes in front
//! of the command that really starts the server.

use crate::nsys::shell::{self, SimpleCommand};

pub const BEGIN: &str = "# >>> dslint nsys";
pub const END: &str = "# <<< dslint nsys";
/// The file (in the output folder) that names the report being written.
pub const OUTPUT_NAME_FILE: &str = ".dslint_nsys_output";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Coarse,
    Detailed,
}

pub const COARSE: &str = "nsys profile -c cudaProfilerApi -t nvtx,osrt,cuda,cublas-verbose,python-gil -f true --cudabacktrace=all --python-backtrace=cuda --cuda-memory-usage=true";

fn nsys_cmd(level: Level) -> String {
    match level {
        Level::Coarse => COARSE.to_string(),
        Level::Detailed => format!("{COARSE} --cuda-graph-trace=node"),
    }
}

fn is_launcher(word: &str) -> bool {
    let base = word.rsplit('/').next().unwrap_or(word);
    base == "python"
        || base == "torchrun"
        || base == "deepspeed"
        || base.strip_prefix("python3").is_some_and(|v| {
            v.is_empty()
                || v.strip_prefix('.')
                    .is_some_and(|m| m.chars().all(|c| c.is_ascii_digit()))
        })
}

/// Escape a value for use inside double quotes.
fn dq(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            if matches!(c, '"' | '$' | '`' | '\\') {
                vec!['\\', c]
            } else {
                vec![c]
            }
        })
        .collect()
}

/// The command that starts the server: the last python/torchrun/deepspeed
/// command (outside function bodies when there are others), or the one on
/// `line`. Refuses when two branches of one `if`/`case` each start one.
pub fn launch_command(script: &shell::Script, line: Option<usize>) -> Result<SimpleCommand, String> {
    let candidates: Vec<&SimpleCommand> = script
        .commands
        .iter()
        .filter(|c| c.program().is_some_and(|p| is_launcher(&p.text)))
        .collect();
    if let Some(l) = line {
        return candidates
            .iter()
            .find(|c| c.line == l)
            .map(|c| (*c).clone())
            .ok_or_else(|| format!("no python, torchrun or deepspeed command starts on line {l}"));
    }
    let top: Vec<&&SimpleCommand> = candidates.iter().filter(|c| !c.in_function).collect();
    let pool: Vec<&SimpleCommand> = if top.is_empty() {
        candidates.clone()
    } else {
        top.into_iter().copied().collect()
    };
    let last = *pool
        .last()
        .ok_or("no launch command found: the script runs no python, python3, torchrun or deepspeed command")?;
    if let Some((block, branch)) = last.branch {
        let rivals: Vec<usize> = pool
            .iter()
            .filter(|c| c.branch.is_some_and(|(b, k)| b == block && k != branch))
            .map(|c| c.line)
            .collect();
        if !rivals.is_empty() {
            let lines: Vec<String> = rivals
                .iter()
                .chain(std::iter::once(&last.line))
                .map(|l| l.to_string())
                .collect();
            return Err(format!(
                "ambiguous: branches of one if/case start different servers (lines {}); choose one with --line N",
                lines.join(", ")
            ));
        }
    }
    Ok(last.clone())
}

/// Whether a script already carries dslint's block and the `${NSYS_CMD}`
/// prefix (a `*_nsys.sh` written earlier).
pub fn is_wrapped(src: &str) -> bool {
    src.contains(BEGIN) && src.contains("${NSYS_CMD}")
}

pub fn wrap(src: &str, level: Level, output_dir: Option<&str>, line: Option<usize>) -> Result<String, String> {
    let eol = if src.contains("\r\n") { "\r\n" } else { "\n" };
    let script = shell::lex(src)?;
    if is_wrapped(src) {
        return Ok(src.to_string());
    }
    let cmd = launch_command(&script, line)?;
    let prog = cmd.program().ok_or("the launch command has no program")?;
    if cmd
        .words
        .iter()
        .any(|w| w.text.contains("NSYS_CMD") || w.text == "nsys")
    {
        return Err(format!("line {}: the launch command already runs under nsys", cmd.line));
    }
    // Where the block goes: after the script's own NSYS_OUTPUT_DIR=, else
    // after the shebang, else at the top.
    let own_dir = script
        .commands
        .iter()
        .filter(|c| {
            c.words.first().is_some_and(|w| {
                w.text.starts_with("NSYS_OUTPUT_DIR=")
                    || w.text == "export" && c.words.get(1).is_some_and(|w| w.text.starts_with("NSYS_OUTPUT_DIR="))
            })
        })
        .find(|c| c.words[0].span.start < prog.span.start);
    let line_end = |pos: usize| src[pos..].find('\n').map_or(src.len(), |i| pos + i + 1);
    let at = match own_dir {
        Some(c) => line_end(c.words.last().map_or(0, |w| w.span.end)),
        None if src.starts_with("#!") => line_end(0),
        None => 0,
    };
    let mut block = vec![format!(
        "{BEGIN} (added by `dslint nsys wrap`; delete through the closing marker to undo)"
    )];
    if own_dir.is_none() {
        block.push(format!(
            "NSYS_OUTPUT_DIR=\"${{NSYS_OUTPUT_DIR:-{}}}\"",
            dq(output_dir.unwrap_or("/tmp/nsys_record"))
        ));
    }
    block.push("mkdir -p \"$NSYS_OUTPUT_DIR\"".into());
    block.push("NSYS_OUTPUT=\"$NSYS_OUTPUT_DIR/$(date +%Y%m%d_%H%M%S)_nsys\"".into());
    block.push(format!(
        "echo \"$NSYS_OUTPUT\" > \"$NSYS_OUTPUT_DIR/{OUTPUT_NAME_FILE}\""
    ));
    let (on, off) = match level {
        Level::Coarse => (Level::Coarse, Level::Detailed),
        Level::Detailed => (Level::Detailed, Level::Coarse),
    };
    let describe = |l: Level| match l {
        Level::Coarse => "coarse: starts at cudaProfilerStart(), CUDA/NVTX/OS runtime/cuBLAS/Python GIL",
        Level::Detailed => "detailed: coarse plus every CUDA graph node",
    };
    block.push(format!("# {}", describe(on)));
    block.push(format!("NSYS_CMD=\"{} --output $NSYS_OUTPUT\"", nsys_cmd(on)));
    block.push(format!("# {}", describe(off)));
    block.push(format!("# NSYS_CMD=\"{} --output $NSYS_OUTPUT\"", nsys_cmd(off)));
    block.push(END.into());
    let mut text = block.join(eol) + eol;
    if at == src.len() && !src.is_empty() && !src.ends_with('\n') {
        text = format!("{eol}{text}");
    }
    let mut out = String::with_capacity(src.len() + text.len() + 16);
    let insert_cmd = prog.span.start;
    if at <= insert_cmd {
        out.push_str(&src[..at]);
        out.push_str(&text);
        out.push_str(&src[at..insert_cmd]);
        out.push_str("${NSYS_CMD} ");
        out.push_str(&src[insert_cmd..]);
    } else {
        out.push_str(&src[..insert_cmd]);
        out.push_str("${NSYS_CMD} ");
        out.push_str(&src[insert_cmd..at]);
        out.push_str(&text);
        out.push_str(&src[at..]);
    }
    Ok(out)
}

/// `dslint nsys wrap`: write `SCRIPT_nsys.sh` beside the script (with the
/// script's permission bits), or with `diff_only` only show what it would
/// be. A script that is already wrapped is left alone.
pub fn wrap_file(
    script: &std::path::Path,
    level: Level,
    output_dir: Option<&str>,
    line: Option<usize>,
    diff_only: bool,
) -> Result<String, String> {
    let src = read_script(script)?;
    if is_wrapped(&src) {
        return Ok(format!(
            "{} is already wrapped (it holds dslint's nsys block); nothing written\n",
            script.display()
        ));
    }
    let out = wrap(&src, level, output_dir, line)?;
    let dst = wrapped_path(script);
    let shown = crate::fix::diff::unified_between(script, &dst, &src, &out, false);
    if diff_only {
        return Ok(shown);
    }
    write_wrapped(script, &out)?;
    Ok(format!("{shown}wrote {}\n", dst.display()))
}

/// A launch script's text (a regular file, bounded).
pub fn read_script(script: &std::path::Path) -> Result<String, String> {
    crate::files::read::read_text(script, crate::files::read::MAX_FILE_BYTES)
}

/// Write `SCRIPT_nsys.sh` beside the script: a new file renamed into
/// place, so a file or link planted at that name is replaced, never written
/// through. The copy runs like the original: the same permission bits, no
/// more (no execute bit the original lacks; never setuid/setgid).
pub fn write_wrapped(script: &std::path::Path, text: &str) -> Result<std::path::PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    let dst = wrapped_path(script);
    let mode = std::fs::metadata(script).map_or(0o644, |m| m.permissions().mode()) & 0o777;
    let dir = crate::files::write::Dir::open(script.parent().unwrap_or(std::path::Path::new(".")))?;
    let name = dst
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| format!("{}: not a file name dslint writes", dst.display()))?;
    dir.create_or_replace(name, text.as_bytes(), mode)?;
    Ok(dst)
}

/// `start.sh` → `start_nsys.sh`.
pub fn wrapped_path(script: &std::path::Path) -> std::path::PathBuf {
    let stem = script.file_stem().and_then(|s| s.to_str()).unwrap_or("start");
    let ext = script
        .extension()
        .and_then(|s| s.to_str())
        .map_or(String::new(), |e| format!(".{e}"));
    script.with_file_name(format!("{stem}_nsys{ext}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_block_and_prefix() {
        let out = wrap(
            "#!/bin/sh\nCUDA_VISIBLE_DEVICES=0 python3 s.py\n",
            Level::Coarse,
            None,
            None,
        )
        .unwrap();
        assert!(out.starts_with("#!/bin/sh\n# >>> dslint nsys"));
        assert!(
            out.ends_with("# <<< dslint nsys\nCUDA_VISIBLE_DEVICES=0 ${NSYS_CMD} python3 s.py\n"),
            "{out}"
        );
        assert!(
            wrap("echo hi\n", Level::Coarse, None, None)
                .unwrap_err()
                .contains("no launch command")
        );
        let d = wrap("python3 s.py", Level::Detailed, Some("/my dir/$x"), None).unwrap();
        assert!(
            d.contains("NSYS_OUTPUT_DIR=\"${NSYS_OUTPUT_DIR:-/my dir/\\$x}\""),
            "{d}"
        );
        assert!(d.contains("NSYS_CMD=\"nsys profile -c cudaProfilerApi -t nvtx,osrt,cuda,cublas-verbose,python-gil -f true --cudabacktrace=all --python-backtrace=cuda --cuda-memory-usage=true --cuda-graph-trace=node --output $NSYS_OUTPUT\""));
        assert!(d.ends_with("${NSYS_CMD} python3 s.py"));
    }
}
