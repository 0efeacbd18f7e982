//! What a container is given of the host's tree at run time: the host
//! paths that shell scripts bind-mount (`docker run -v SRC:DST`,
//! `--volume`, `--mount type=bind,source=SRC`) and that Compose files
//! mount (`volumes:` short `SRC:DST` and long `source:` forms, a local
//! volume's `device:`, a config's or secret's `file:`). A config mounted at
//! another path runs from the mount target, next to the image's files and
//! the container's other mounts, which the project's tree does not show
//! (`Workspace::copied_into_image`): whether a path it names is missing is
//! unknown there, as for a config a Dockerfile copies
//! (`syntax::dockerfile`).
//!
//! Read as Docker's CLI and Compose read them ("docker container run",
//! "Bind mounts" and the Compose file reference's `volumes` pages): `-v`
//! takes `SRC:DST[:OPTIONS]`, and a `SRC` that is no path (not starting
//! with `/`, `.`, `~` or a variable) names a volume, not a host folder; a
//! `--mount` binds a host path only with `type=bind`; Compose
//! resolves a relative `SRC` (`./configs`, `..`) from the project
//! directory, the folder of the (first) Compose file. A script's relative
//! path resolves from the folder it is run in, and a variable or command
//! substitution (`$(pwd)`, `${PWD}`, `$ROOT`, `~`) names a folder the
//! file does not show: such a path is taken from the script's folder and
//! every folder above it up to the project root (more of the tree counted
//! as mounted only leaves more paths unknown, never a finding). Lines are
//! read as written, not run: a mount the script builds in a loop or reads
//! from a file is not seen.

use std::path::Path;

/// The most mounts one file gives (a hostile file stays bounded; a real
/// one has tens).
const MAX_MOUNTS: usize = 1_000;

/// Where a mounted host path is taken from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// An absolute path.
    Absolute,
    /// Compose's project directory: a Compose file's folder.
    Project,
    /// A folder the file does not name (a script's working folder, a
    /// variable): its own folder or any above it in the project.
    Unknown,
}

/// A host path bind-mounted into a container: `path` is relative to
/// `base` (`/`-separated, `.` dropped, `..` kept, cut before its first
/// component with a variable or a wildcard; `""` is the base itself),
/// absolute for [`Base::Absolute`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub base: Base,
    pub path: String,
}

/// Whether a file of this name is a Compose file (`compose.yaml`,
/// `docker-compose.yml`, `docker-compose.override.yml`,
/// `docker-compose-gpu.yaml`, any case).
pub fn is_compose_file(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    let Some(stem) = name.strip_suffix(".yml").or_else(|| name.strip_suffix(".yaml")) else {
        return false;
    };
    ["docker-compose", "compose"].iter().any(|p| {
        stem.strip_prefix(p)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '-', '_']))
    })
}

/// Whether a file of this name is a shell script (`.sh`, `.bash`).
pub fn is_script(path: &Path) -> bool {
    crate::files::extension(path)
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("sh") || e.eq_ignore_ascii_case("bash"))
}

/// The host paths a shell script's `docker run` (or `podman run`,
/// `docker create`, …: any command with these flags) bind-mounts.
pub fn script_mounts(text: &str) -> Vec<Mount> {
    let mut out = Vec::new();
    let mut command = String::new();
    for line in text.lines() {
        // A line ending in `\` goes on on the next.
        if let Some(cont) = line.strip_suffix('\\') {
            command.push_str(cont);
            command.push(' ');
            continue;
        }
        command.push_str(line);
        // Most commands have no such flag (`--volume` holds `-v`): not
        // split into words.
        if !command.contains("-v") && !command.contains("--mount") {
            command.clear();
            continue;
        }
        let list = words(&command);
        command.clear();
        for (i, w) in list.iter().enumerate() {
            let w = w.as_str();
            let next = list.get(i + 1).map(String::as_str);
            let (volume, mount) = match w {
                "-v" | "--volume" => (next, None),
                "--mount" => (None, next),
                _ => match (w.strip_prefix("--volume="), w.strip_prefix("--mount=")) {
                    (Some(v), _) => (Some(v), None),
                    (_, Some(m)) => (None, Some(m)),
                    // `-vSRC:DST`, the value joined to the flag.
                    _ => (w.strip_prefix("-v").filter(|v| v.contains(':')), None),
                },
            };
            if let Some(src) = volume.and_then(volume_source) {
                out.extend(host_path(src, Base::Unknown));
            }
            if let Some(src) = mount.and_then(mount_source) {
                out.extend(host_path(src, Base::Unknown));
            }
            if out.len() >= MAX_MOUNTS {
                out.truncate(MAX_MOUNTS);
                return out;
            }
        }
    }
    out
}

/// The host paths a Compose file mounts, read line by line (a list item
/// that is a `SRC:DST` volume, and the values of `source:`, `device:` and
/// `file:`), wherever they stand: what is not a mount (a `devices:` item)
/// adds only paths counted as mounted.
pub fn compose_mounts(text: &str) -> Vec<Mount> {
    let mut out = Vec::new();
    for line in text.lines() {
        let body = strip_yaml_comment(line).trim();
        let (item, rest) = match body.strip_prefix('-') {
            Some(r) if r.is_empty() || r.starts_with([' ', '\t']) => (true, r.trim()),
            _ => (false, body),
        };
        // `{type: bind, source: ./a, target: /b}` and `[./a:/b, ./c:/d]`.
        let rest = rest.trim_start_matches(['{', '[']).trim_end_matches(['}', ']']);
        for part in split_top(rest, ',') {
            let part = part.trim();
            match key_value(part) {
                Some((key, value)) => {
                    let value = unquote(value.trim_start_matches(['[', '{']));
                    if matches!(key, "source" | "src" | "device" | "file") {
                        if !value.is_empty() {
                            out.extend(host_path(value, Base::Project));
                        }
                    } else if key == "volumes" {
                        // The first of a flow list (`volumes: ["./a:/a"]`).
                        out.extend(volume_source(value).and_then(|src| host_path(src, Base::Project)));
                    }
                }
                None if item || rest.contains(',') => {
                    if let Some(src) = volume_source(unquote(part)) {
                        out.extend(host_path(src, Base::Project));
                    }
                }
                None => {}
            }
            if out.len() >= MAX_MOUNTS {
                out.truncate(MAX_MOUNTS);
                return out;
            }
        }
    }
    out
}

/// A YAML line without its comment (` #` outside quotes).
fn strip_yaml_comment(line: &str) -> &str {
    let mut quote = None;
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' && prev.is_whitespace() => return &line[..i],
            None => {}
        }
        prev = c;
    }
    line
}

/// `key: value` (a YAML mapping entry: a `:` followed by a space or the
/// end), the key unquoted.
fn key_value(s: &str) -> Option<(&str, &str)> {
    let (mut quote, mut depth) = (None, 0usize);
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '{') => depth += 1,
            (None, '}') => depth = depth.saturating_sub(1),
            (None, ':') if depth == 0 && s[i + 1..].chars().next().is_none_or(char::is_whitespace) => {
                return Some((unquote(s[..i].trim()), s[i + 1..].trim()));
            }
            _ => {}
        }
    }
    None
}

fn unquote(s: &str) -> &str {
    let s = s.trim();
    for q in ['"', '\''] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    s
}

/// The host side of a `-v` value or Compose short volume (`SRC:DST[:OPTS]`):
/// `None` for an anonymous volume (no `:`) or a named one (a `SRC` that is
/// no path).
fn volume_source(value: &str) -> Option<&str> {
    let parts = split_top(value, ':');
    let (&src, dst) = (parts.first()?, parts.get(1)?);
    if dst.is_empty() || src.is_empty() {
        return None;
    }
    // Docker and Compose read any other as a volume's name.
    src.starts_with(['.', '/', '~', '$', '`']).then_some(src)
}

/// The host side of a `--mount` value of `type=bind`
/// (`type=bind,source=SRC,target=DST`; `src=` too).
fn mount_source(value: &str) -> Option<&str> {
    let fields: Vec<(&str, &str)> = split_top(value, ',')
        .into_iter()
        .filter_map(|f| f.split_once('='))
        .collect();
    let bind = fields.iter().any(|(k, v)| k.trim() == "type" && v.trim() == "bind");
    let src = fields.iter().find(|(k, _)| matches!(k.trim(), "source" | "src"))?.1;
    (bind && !src.is_empty()).then_some(src)
}

/// A host path as written, placed: absolute; relative to `relative`'s
/// base; or from an unknown folder when it begins with a variable, a
/// command substitution or `~`. Cut before the first later component with
/// a variable or a wildcard.
fn host_path(src: &str, relative: Base) -> Option<Mount> {
    let (base, rest) = if let Some(abs) = src.strip_prefix('/') {
        (Base::Absolute, abs)
    } else {
        let parts = split_top(src, '/');
        let first = parts[0];
        if first.starts_with('~') || first.contains(['$', '`']) {
            (Base::Unknown, src.get(first.len() + 1..).unwrap_or(""))
        } else {
            (relative, src)
        }
    };
    let mut parts: Vec<&str> = Vec::new();
    for c in split_top(rest, '/') {
        if c.contains(['$', '`', '*', '?', '[', '{']) {
            break;
        }
        if !matches!(c, "" | ".") {
            parts.push(c);
        }
    }
    let path = parts.join("/");
    Some(Mount {
        path: if base == Base::Absolute {
            format!("/{path}")
        } else {
            path
        },
        base,
    })
}

/// `s` split at each `sep` that is outside a command substitution
/// (`$(…)`, `` `…` ``) or a parameter expansion (`${…}`).
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut backtick, mut start) = (0usize, false, 0);
    let mut prev = '\0';
    for (i, c) in s.char_indices() {
        match c {
            '(' | '{' if prev == '$' && !backtick => depth += 1,
            '(' | '{' if depth > 0 => depth += 1,
            ')' | '}' if depth > 0 => depth -= 1,
            '`' => backtick = !backtick,
            c if c == sep && depth == 0 && !backtick => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
        prev = c;
    }
    out.push(&s[start..]);
    out
}

/// One shell command's words, quotes removed, substitutions (`$(…)`,
/// `` `…` ``, `${…}`) kept whole and as written; `;`, `|`, `&` and the
/// rest of the line after a `#` that begins a word end words. A reading
/// close enough to find flags and their values, not a shell.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut started = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                started = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                started = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        '$' if matches!(chars.peek(), Some('(' | '{')) => substitution(&mut chars, &mut word),
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                started = true;
                word.extend(chars.next());
            }
            '$' if matches!(chars.peek(), Some('(' | '{')) => {
                started = true;
                substitution(&mut chars, &mut word);
            }
            '`' => {
                started = true;
                word.push('`');
                for c in chars.by_ref() {
                    word.push(c);
                    if c == '`' {
                        break;
                    }
                }
            }
            '#' if !started => break,
            c if c.is_whitespace() || matches!(c, ';' | '|' | '&') => {
                if started {
                    out.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                started = true;
                word.push(c);
            }
        }
    }
    if started {
        out.push(word);
    }
    out
}

/// A `$(…)` or `${…}` (the `$` read, the bracket next), copied whole into
/// `word`, nested brackets and quotes inside it included.
fn substitution(chars: &mut std::iter::Peekable<std::str::Chars>, word: &mut String) {
    word.push('$');
    let mut depth = 0usize;
    for c in chars.by_ref() {
        word.push(c);
        match c {
            '(' | '{' => depth += 1,
            ')' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return;
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(base: Base, path: &str) -> Mount {
        Mount {
            base,
            path: path.to_string(),
        }
    }

    #[test]
    fn names() {
        for yes in [
            "docker-compose.yml",
            "docker-compose.yaml",
            "compose.yaml",
            "Compose.yml",
            "docker-compose.override.yml",
            "docker-compose-gpu.yaml",
            "compose.dev.yaml",
        ] {
            assert!(is_compose_file(Path::new(yes)), "{yes}");
        }
        for no in ["composer.yml", "docker-compose.txt", "config.yml", "mycompose.yml"] {
            assert!(!is_compose_file(Path::new(no)), "{no}");
        }
        assert!(is_script(Path::new("run.sh")) && is_script(Path::new("a/b.BASH")));
        assert!(!is_script(Path::new("run.py")) && !is_script(Path::new("sh")));
    }

    #[test]
    fn docker_run_volumes() {
        let text = r#"#!/bin/bash
# docker run -v ./commented:/x
xhost +
docker run --gpus all -it --rm \
    -v /tmp/.X11-unix:/tmp/.X11-unix \
    -v "$(pwd)":/opt/nvidia/deepstream/deepstream/sources/app \
    -v ${PWD}/configs:/app/configs:ro \
    --volume=./models:/models \
    -v data:/data -v /anonymous \
    --mount type=bind,source="$(cd "$(dirname "$0")/.." && pwd)/streams",target=/streams \
    --mount type=volume,source=cache,target=/cache \
    -v ~/.cache:/root/.cache -v "$ROOT/a/$NAME/b:/b" \
    -e DISPLAY=$DISPLAY nvcr.io/nvidia/deepstream:9.1-triton-multiarch
podman run -v ../shared/labels.txt:/labels.txt img; docker run -v${MODELS:-./m}:/m img
"#;
        assert_eq!(
            script_mounts(text),
            [
                m(Base::Absolute, "/tmp/.X11-unix"),
                m(Base::Unknown, ""),
                m(Base::Unknown, "configs"),
                m(Base::Unknown, "models"),
                m(Base::Unknown, "streams"),
                m(Base::Unknown, ".cache"),
                m(Base::Unknown, "a"),
                m(Base::Unknown, "../shared/labels.txt"),
                m(Base::Unknown, ""),
            ]
        );
    }

    #[test]
    fn compose_volumes() {
        let text = r#"services:
  deepstream:
    image: nvcr.io/nvidia/deepstream:9.1-samples-multiarch
    ports:
      - "8554:8554"
    devices:
      - /dev/video0:/dev/video0
    volumes:
      - ./configs:/opt/nvidia/deepstream/deepstream/samples/configs/app   # the app
      - "../models:/models:ro"
      - type: bind
        source: ./streams
        target: /streams
      - type: volume
        source: engines
        target: /engines
      - engines:/cache
      - ${PWD}/labels:/labels
    command: ["deepstream-app", "-c", "/opt/app/app.txt"]
  other:
    volumes: [ "./a:/a", './b:/b' ]
volumes:
  engines:
  bound:
    driver_opts: { type: none, o: bind, device: ./bound }
configs:
  app:
    file: ./configs/app.txt
"#;
        assert_eq!(
            compose_mounts(text),
            [
                m(Base::Absolute, "/dev/video0"),
                m(Base::Project, "configs"),
                m(Base::Project, "../models"),
                m(Base::Project, "streams"),
                m(Base::Project, "engines"),
                m(Base::Unknown, "labels"),
                m(Base::Project, "a"),
                m(Base::Project, "b"),
                m(Base::Project, "bound"),
                m(Base::Project, "configs/app.txt"),
            ]
        );
    }

    #[test]
    fn bounded() {
        let text = format!("docker run {} img\n", "-v ./a:/a ".repeat(MAX_MOUNTS + 5));
        assert_eq!(script_mounts(&text).len(), MAX_MOUNTS);
        let text = "- ./a:/a\n".repeat(MAX_MOUNTS + 5);
        assert_eq!(compose_mounts(&text).len(), MAX_MOUNTS);
    }
}
