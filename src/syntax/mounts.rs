//! What a container is given of the host's tree at run time: the host
//! paths that shell scripts bind-mount (`docker run -v SRC:DST`,
//! `--volume`, `--mount type=bind,source=SRC,target=DST`) and that Compose
//! files mount (`volumes:` short `SRC:DST` and long `source:`/`target:`
//! forms, a local volume's `device:`, a config's or secret's `file:`), each
//! with where it lands in the container, and the volumes mounted beside
//! them (named, anonymous), which land there too.
//!
//! A config mounted at another path runs from the mount target: a relative
//! path that stays inside the mounted folder names the same file there as
//! in the project (the mount shows the host's folder as it is), unless
//! another mount lands inside the target; a path that leaves it lands in
//! the container's own tree, among the image's files and other mounts,
//! which the project does not show (`Workspace::unknown_in_container`).
//!
//! Read as Docker's CLI and Compose read them ("docker container run",
//! "Bind mounts" and the Compose file reference's `volumes` pages): `-v`
//! takes `SRC:DST[:OPTIONS]` (`DST` alone: an anonymous volume), and a
//! `SRC` that is no path (not starting with `/`, `.`, `~` or a variable)
//! names a volume, not a host folder; a `--mount` binds a host path only
//! with `type=bind`; Compose resolves a relative `SRC` (`./configs`, `..`)
//! from the project directory, the folder of the (first) Compose file. A
//! script's relative path resolves from the folder it is run in, and a
//! variable or command substitution (`$(pwd)`, `${PWD}`, `$ROOT`, `~`)
//! names a folder the file does not show: such a path is taken from the
//! script's folder and every folder above it up to the project root. A
//! target with a variable, or one the line does not give (a `device:`, a
//! `file:`), is unknown: it may land inside any other. Lines are read as
//! written, not run: a mount the script builds in a loop or reads from a
//! file is not seen.

use std::path::Path;

/// The most mounts one file gives (a hostile file stays bounded; a real
/// one has tens); a file with more may mount anything anywhere
/// (`script_mounts` and `compose_mounts` give `None`).
const MAX_MOUNTS: usize = 1_000;

/// The most words one script command is split into (a `docker run` has
/// tens): one with more may mount anything (`script_mounts` gives
/// `None`), told before they are all held (a hostile 10 MiB line of 5
/// million words held ~260 MB of them). Past it, as past `MAX_MOUNTS`,
/// nothing is printed (SECURITY.md, item 7: unknown only withholds).
const MAX_WORDS: usize = 10 * MAX_MOUNTS;

/// Where a mounted host path is taken from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Base {
    /// An absolute path.
    Absolute,
    /// Compose's project directory: a Compose file's folder.
    Project,
    /// A folder the file does not name (a script's working folder, a
    /// variable): its own folder or any above it in the project.
    Unknown,
}

/// What one mount gives a container.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Mount {
    /// The host path bound; `None` for a volume (named or anonymous).
    pub source: Option<HostPath>,
    /// Where it lands in the container (absolute, `/`-separated,
    /// normalized); `None` when unknown.
    pub target: Option<String>,
}

/// A host path: `path` is relative to `base` (`/`-separated, `.` dropped,
/// `..` kept, cut before its first component with a variable or a
/// wildcard; `""` is the base itself), absolute for [`Base::Absolute`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HostPath {
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

/// The mounts of a shell script's `docker run` (or `podman run`, `docker
/// create`, …: any command with these flags). `None` past [`MAX_MOUNTS`]:
/// what the mounts not read bind is unknown.
pub fn script_mounts(text: &str) -> Option<Vec<Mount>> {
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
        let list = words(&command)?;
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
            out.extend(volume.and_then(|v| volume_mount(v, Base::Unknown)));
            out.extend(mount.and_then(flag_mount));
            if out.len() > MAX_MOUNTS {
                return None;
            }
        }
    }
    Some(out)
}

/// The mounts of a Compose file, read line by line: a list item that is a
/// `SRC:DST` volume, the long syntax's `source:` with the `target:` of
/// its item, `device:` and `file:` (their targets unknown), wherever they
/// stand: what is not a mount (a `devices:` item) adds only paths counted
/// as mounted. `None` past [`MAX_MOUNTS`], as [`script_mounts`].
pub fn compose_mounts(text: &str) -> Option<Vec<Mount>> {
    let mut out = Vec::new();
    // The list item being read (with its `-`'s column), and the flow
    // mapping (`{type: bind, source: ./a, target: /b}`).
    let mut item: Option<(usize, Pending)> = None;
    let mut flow: Option<Pending> = None;
    for line in text.lines() {
        let body = strip_yaml_comment(line);
        let indent = body.len() - body.trim_start().len();
        let body = body.trim();
        if body.is_empty() {
            continue;
        }
        let (is_item, rest) = match body.strip_prefix('-') {
            Some(r) if r.is_empty() || r.starts_with([' ', '\t']) => (true, r.trim()),
            _ => (false, body),
        };
        if item.as_ref().is_some_and(|(col, _)| is_item || indent <= *col) {
            if let Some((_, p)) = item.take() {
                p.end(&mut out);
            }
        }
        if is_item {
            item = Some((indent, Pending::default()));
        }
        // `[./a:/b, ./c:/d]` and flow mappings, part by part.
        for part in split_top(rest, ',') {
            let (opens, closes) = (part.contains('{'), part.contains('}'));
            if opens {
                flow = Some(Pending::default());
            }
            let part = part.trim_matches(|c: char| c.is_whitespace() || matches!(c, '{' | '}' | '[' | ']'));
            let pending = match (&mut flow, &mut item) {
                (Some(f), _) => Some(f),
                (None, Some((_, i))) => Some(i),
                (None, None) => None,
            };
            match key_value(part) {
                Some((key, value)) => {
                    let value = unquote(value.trim_start_matches(['[', '{']));
                    match key {
                        "source" | "src" if !value.is_empty() => {
                            if let Some(p) = pending {
                                p.sources.push(out.len());
                            }
                            out.push(Mount {
                                source: host_path(value, Base::Project),
                                target: None,
                            });
                        }
                        "target" => {
                            if let Some(p) = pending {
                                p.target = Some(container_path(value));
                            }
                        }
                        "device" | "file" if !value.is_empty() => out.push(Mount {
                            source: host_path(value, Base::Project),
                            target: None,
                        }),
                        // The first of a flow list (`volumes: ["./a:/a"]`).
                        "volumes" => out.extend(volume_mount(value, Base::Project)),
                        _ => {}
                    }
                }
                None if is_item || rest.contains(',') => out.extend(volume_mount(unquote(part), Base::Project)),
                None => {}
            }
            if closes {
                if let Some(f) = flow.take() {
                    f.end(&mut out);
                }
            }
            if out.len() > MAX_MOUNTS {
                return None;
            }
        }
    }
    for p in [flow, item.map(|(_, p)| p)].into_iter().flatten() {
        p.end(&mut out);
    }
    Some(out)
}

/// A Compose list item or flow mapping being read: the mounts its
/// `source:` gave (by position in the list), and its `target:`.
#[derive(Default)]
struct Pending {
    sources: Vec<usize>,
    target: Option<Option<String>>,
}

impl Pending {
    /// Read to its end: its `target:` is its `source:`s' (a volume's or a
    /// bind's long syntax), or a volume of its own when it has none; a
    /// `source:` that names no path with no target (a secret's, which
    /// lands in `/run/secrets`) is no mount.
    fn end(self, out: &mut Vec<Mount>) {
        match (self.sources.is_empty(), self.target) {
            (false, Some(target)) => {
                for &i in &self.sources {
                    if let Some(m) = out.get_mut(i) {
                        m.target = target.clone();
                    }
                }
            }
            (true, Some(Some(target))) => out.push(Mount {
                source: None,
                target: Some(target),
            }),
            (false, None) => {
                for &i in self.sources.iter().rev() {
                    let named = out.get(i).is_some_and(|m| {
                        (m.source.as_ref()).is_some_and(|s| {
                            s.base == Base::Project && !s.path.contains('/') && !s.path.starts_with('.')
                        })
                    });
                    if named {
                        out.remove(i);
                    }
                }
            }
            _ => {}
        }
    }
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

/// A `-v` value or Compose short volume (`SRC:DST[:OPTS]`, or `DST`
/// alone: an anonymous volume): a bind of a host path, a named volume (a
/// `SRC` that is no path), or nothing when it is no mount (`grep -v word`,
/// `- "8554:8554"`: no absolute `DST`).
fn volume_mount(value: &str, relative: Base) -> Option<Mount> {
    let parts = split_top(value, ':');
    let (src, dst) = match parts.as_slice() {
        [dst] => ("", *dst),
        [src, dst, ..] => (*src, *dst),
        [] => return None,
    };
    if !dst.starts_with(['/', '$', '`']) {
        return None;
    }
    let target = container_path(dst);
    if src.is_empty() {
        // `-v /data`, `- /data`: an anonymous volume (a `DST` alone).
        return (parts.len() == 1 && target.is_some()).then_some(Mount { source: None, target });
    }
    // Docker and Compose read any other as a volume's name.
    if src.starts_with(['.', '/', '~', '$', '`']) {
        return Some(Mount {
            source: host_path(src, relative),
            target,
        });
    }
    let name = src
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    name.then_some(Mount { source: None, target })
}

/// A `--mount` value (`type=bind,source=SRC,target=DST`; `src=`, `dst=`,
/// `destination=` too): a bind of a host path with `type=bind`, a volume
/// otherwise (a `tmpfs` adds no file); nothing without a target.
fn flag_mount(value: &str) -> Option<Mount> {
    let fields: Vec<(&str, &str)> = split_top(value, ',')
        .into_iter()
        .filter_map(|f| f.split_once('='))
        .map(|(k, v)| (k.trim(), v.trim()))
        .collect();
    let field = |names: &[&str]| fields.iter().find(|(k, _)| names.contains(k)).map(|&(_, v)| v);
    let kind = field(&["type"]).unwrap_or("volume");
    if kind == "tmpfs" {
        return None;
    }
    let target = container_path(field(&["target", "dst", "destination"])?);
    let source = match field(&["source", "src"]) {
        Some(src) if kind == "bind" && !src.is_empty() => host_path(src, Base::Unknown),
        _ => None,
    };
    Some(Mount { source, target })
}

/// A container path as written: absolute and with no variable, normalized
/// (`.` dropped, `..` folded); `None` otherwise (where it lands is not in
/// the file).
fn container_path(dst: &str) -> Option<String> {
    let rest = dst.strip_prefix('/')?;
    let mut parts: Vec<&str> = Vec::new();
    for c in rest.split('/') {
        if c.contains(['$', '`', '~']) {
            return None;
        }
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    Some(format!("/{}", parts.join("/")))
}

/// A host path as written, placed: absolute; relative to `relative`'s
/// base; or from an unknown folder when it begins with a variable, a
/// command substitution or `~`. Cut before the first later component with
/// a variable or a wildcard.
fn host_path(src: &str, relative: Base) -> Option<HostPath> {
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
    Some(HostPath {
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
/// close enough to find flags and their values, not a shell. `None` past
/// [`MAX_WORDS`].
fn words(line: &str) -> Option<Vec<String>> {
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
                    if out.len() == MAX_WORDS {
                        return None;
                    }
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
        if out.len() == MAX_WORDS {
            return None;
        }
        out.push(word);
    }
    Some(out)
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

    fn bind(base: Base, path: &str, target: Option<&str>) -> Mount {
        Mount {
            source: Some(HostPath {
                base,
                path: path.to_string(),
            }),
            target: target.map(str::to_string),
        }
    }

    fn volume(target: &str) -> Mount {
        Mount {
            source: None,
            target: Some(target.to_string()),
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
xhost + ; grep -v pattern file; grep -v "a:b" file
docker run --gpus all -it --rm \
    -v /tmp/.X11-unix:/tmp/.X11-unix \
    -v "$(pwd)":/opt/nvidia/deepstream/deepstream/sources/app \
    -v ${PWD}/configs:/app/configs/./:ro \
    --volume=./models:/models \
    -v data:/data -v /anonymous \
    --mount type=bind,source="$(cd "$(dirname "$0")/.." && pwd)/streams",target=/streams \
    --mount type=volume,source=cache,target=/cache --mount type=tmpfs,target=/tmp \
    -v ~/.cache:/root/.cache -v "$ROOT/a/$NAME/b:/b" -v ./c:$DST \
    -e DISPLAY=$DISPLAY nvcr.io/nvidia/deepstream:9.1-triton-multiarch
podman run -v ../shared/labels.txt:/labels.txt img; docker run -v${MODELS:-./m}:/m img
"#;
        let u = Base::Unknown;
        assert_eq!(
            script_mounts(text).unwrap(),
            [
                bind(Base::Absolute, "/tmp/.X11-unix", Some("/tmp/.X11-unix")),
                bind(u, "", Some("/opt/nvidia/deepstream/deepstream/sources/app")),
                bind(u, "configs", Some("/app/configs")),
                bind(u, "models", Some("/models")),
                volume("/data"),
                volume("/anonymous"),
                bind(u, "streams", Some("/streams")),
                volume("/cache"),
                bind(u, ".cache", Some("/root/.cache")),
                bind(u, "a", Some("/b")),
                bind(u, "c", None),
                bind(u, "../shared/labels.txt", Some("/labels.txt")),
                bind(u, "", Some("/m")),
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
    environment:
      - DISPLAY=$DISPLAY
    devices:
      - /dev/video0:/dev/video0
    volumes:
      - ./configs:/opt/nvidia/deepstream/deepstream/samples/configs/app   # the app
      - "../models:/models:ro"
      - type: bind
        source: ./streams
        target: /streams
      - target: /engines
        type: volume
        source: engines
      - engines:/cache
      - ${PWD}/labels:/labels
      - /scratch
    secrets:
      - source: token
    command: ["deepstream-app", "-c", "/opt/app/app.txt"]
  other:
    volumes: [ "./a:/a", './b:/b', {type: bind, source: ./c, target: /c} ]
volumes:
  engines:
  bound:
    driver_opts: { type: none, o: bind, device: ./bound }
configs:
  app:
    file: ./configs/app.txt
"#;
        let p = Base::Project;
        assert_eq!(
            compose_mounts(text).unwrap(),
            [
                bind(Base::Absolute, "/dev/video0", Some("/dev/video0")),
                bind(
                    p,
                    "configs",
                    Some("/opt/nvidia/deepstream/deepstream/samples/configs/app")
                ),
                bind(p, "../models", Some("/models")),
                bind(p, "streams", Some("/streams")),
                bind(p, "engines", Some("/engines")),
                volume("/cache"),
                bind(Base::Unknown, "labels", Some("/labels")),
                volume("/scratch"),
                volume("/opt/app/app.txt"),
                bind(p, "a", Some("/a")),
                bind(p, "b", Some("/b")),
                bind(p, "c", Some("/c")),
                bind(p, "bound", None),
                bind(p, "configs/app.txt", None),
            ]
        );
    }

    #[test]
    fn bounded() {
        let text = format!("docker run {} img\n", "-v ./a:/a ".repeat(MAX_MOUNTS + 5));
        assert_eq!(script_mounts(&text), None);
        let text = "- ./a:/a\n".repeat(MAX_MOUNTS + 5);
        assert_eq!(compose_mounts(&text), None);
        // A command of more words than are split: unknown, at the bound
        // read.
        let command = |n: usize| format!("docker run -v ./a:/a {}img\n", "x ".repeat(n));
        assert_eq!(script_mounts(&command(MAX_WORDS - 5)).unwrap().len(), 1);
        assert_eq!(script_mounts(&command(MAX_WORDS - 4)), None);
        // At the bound, every mount as written.
        let text = "- ./a:/a\n".repeat(MAX_MOUNTS);
        assert_eq!(compose_mounts(&text).unwrap().len(), MAX_MOUNTS);
    }
}
