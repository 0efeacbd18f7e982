//! The config keys a C or C++ source reads, for a project that ships its
//! own copy of a DeepStream reader (a fork of deepstream-app's
//! `deepstream_config_file_parser.c` or of nvinfer's
//! `gstnvinfer_property_parser.cpp` with keys of its own).
//!
//! NVIDIA's readers name every key in a `#define CONFIG_…  "key"` line
//! (`CONFIG_GROUP_SOURCE_TYPE "type"`, `CONFIG_GROUP_INFER_BATCH_SIZE
//! "batch-size"`) and compare each key the file holds against them
//! (`!g_strcmp0 (*key, CONFIG_GROUP_INFER_BATCH_SIZE)`) before reading it
//! with `g_key_file_get_*`; their YAML readers compare `paramKey == "key"`.
//! A fork adds its keys the same way. Taken here, without parsing C:
//!
//! - the string of a `#define CONFIG_<NAME> "key"` line;
//! - a string argument of a `g_key_file_get_*` / `g_key_file_has_key` call,
//!   and of a `g_strcmp0` / `strcmp` / `strcasecmp` call in a file that
//!   calls `g_key_file_` at all;
//! - the string after `== ` in a file that uses yaml-cpp (`YAML::`).
//!
//! Only strings that can be a key name (letters, digits, `-`, `_`) are
//! kept. A string taken that no reader reads costs at most a missing DS002
//! for that name, never a finding.

/// The longest key name taken.
const MAX_KEY: usize = 80;
/// The longest `CONFIG_GROUP_…` macro name whose group is taken.
const MAX_MACRO: usize = 160;
/// How far before such a macro its line's `#define` is looked for, and how
/// much blank may come between the macro and its string.
const MAX_HEAD: usize = 64;
/// How far after a call's `(` its arguments are looked for.
const MAX_ARGS: usize = 400;

/// Whether a file with this name is C or C++ source or a header.
pub fn is_source(path: &std::path::Path) -> bool {
    let ext = crate::files::extension(path).and_then(|e| e.to_str()).unwrap_or("");
    ["c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx"]
        .iter()
        .any(|x| ext.eq_ignore_ascii_case(x))
}

/// What every construct [`keys`] and [`group_defines`] take holds, or what
/// makes them take more: a source with none of them reads no keys.
pub const READER_MARKS: &[&[u8]] = &[b"CONFIG_", b"g_key_file_", b"YAML::"];

/// Whether the bytes may hold a reader's keys (a cheap look before
/// `keys`).
pub fn may_read_keys(text: &[u8]) -> bool {
    READER_MARKS.iter().any(|m| memchr::memmem::find(text, m).is_some())
}

/// The key names the source reads (unsorted, each once: a file of 10 MiB
/// repeating one short name holds millions of copies, which would be
/// millions of strings kept until the walk ends).
pub fn keys(text: &[u8]) -> Vec<String> {
    let mut out = Found::default();
    let has = |needle: &[u8]| memchr::memmem::find(text, needle).is_some();
    let key_file = has(b"g_key_file_");
    // `#define CONFIG_… "key"`.
    for line in text.split(|&b| b == b'\n') {
        let l = trim_start(line);
        let Some(rest) = l.strip_prefix(b"#") else { continue };
        let Some(rest) = trim_start(rest).strip_prefix(b"define") else {
            continue;
        };
        let rest = trim_start(rest);
        let Some(rest) = rest.strip_prefix(b"CONFIG_") else {
            continue;
        };
        let name_end = rest
            .iter()
            .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
            .unwrap_or(rest.len());
        if let Some((s, _)) = literal(trim_start(&rest[name_end..])) {
            out.push(s);
        }
    }
    // String arguments of the calls that read or compare a key.
    let mut calls: Vec<&[u8]> = vec![b"g_key_file_get_", b"g_key_file_has_key"];
    if key_file {
        calls.extend_from_slice(&[b"g_strcmp0", b"strcmp", b"strcasecmp"]);
    }
    for call in calls {
        for at in memchr::memmem::find_iter(text, call) {
            let after = &text[at + call.len()..];
            let Some(open) = after.iter().take(64).position(|&b| b == b'(') else {
                continue;
            };
            arguments(&after[open + 1..], &mut out);
        }
    }
    // yaml-cpp readers: `paramKey == "key"`.
    if has(b"YAML::") {
        for at in memchr::memmem::find_iter(text, b"==") {
            if let Some((s, _)) = literal(trim_start(&text[at + 2..])) {
                out.push(s);
            }
        }
    }
    out.names
}

/// The `(group, key)` of each `#define CONFIG_GROUP_<GROUP>_<KEY> "key"`
/// line whose macro ends in the key's own name (upper case, `-` as `_`):
/// NVIDIA's parsers name a key so after the group that reads it
/// (`CONFIG_GROUP_SOURCE_CAMERA_ID "camera-id"` for `[sourceN]`,
/// `CONFIG_GROUP_DSEXAMPLE_…` for `[ds-example]`), and a fork that reads a
/// name in a group of its own choosing does the same. `GROUP` is kept with
/// its `_` dropped (`DSEXAMPLE`, `TILEDDISPLAY`), for
/// [`define_groups_for`]. A macro not of that shape names no group: none.
pub fn group_defines(text: &[u8]) -> Vec<(String, String)> {
    let mut seen: std::collections::HashSet<(&[u8], &[u8])> = std::collections::HashSet::new();
    let mut out: Vec<(String, String)> = Vec::new();
    // Each `CONFIG_GROUP_` whose line so far is `#define` (far fewer than
    // the file's lines: the walk reads every C source of the project).
    const MACRO: &[u8] = b"CONFIG_GROUP_";
    for at in memchr::memmem::find_iter(text, MACRO) {
        // The `#define` before it, on its line, within a few bytes: each
        // look is bounded (a 10 MiB line of macros is no quadratic scan).
        let from = at.saturating_sub(MAX_HEAD);
        let Some(line_start) = memchr::memrchr(b'\n', &text[from..at])
            .map(|i| from + i + 1)
            .or((from == 0).then_some(0))
        else {
            continue;
        };
        let head = trim_start(&text[line_start..at]);
        let Some(head) = head.strip_prefix(b"#") else { continue };
        let Some(head) = trim_start(head).strip_prefix(b"define") else {
            continue;
        };
        if head.is_empty() || !head.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let end = (at + MACRO.len() + MAX_MACRO + MAX_KEY + MAX_HEAD).min(text.len());
        let line_end = memchr::memchr(b'\n', &text[at..end]).map_or(end, |i| at + i);
        let rest = &text[at + MACRO.len()..line_end];
        let name_end = rest
            .iter()
            .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
            .unwrap_or(rest.len());
        let Some((key, _)) = literal(trim_start(&rest[name_end..])) else {
            continue;
        };
        let macro_name = &rest[..name_end];
        if macro_name.len() > MAX_MACRO {
            continue;
        }
        let key_name: Vec<u8> = key
            .iter()
            .map(|&b| if b == b'-' { b'_' } else { b.to_ascii_uppercase() })
            .collect();
        // `<GROUP>_<KEY>`: the key's name ends the macro after a `_`.
        let Some(group) = macro_name
            .strip_suffix(key_name.as_slice())
            .and_then(|g| g.strip_suffix(b"_"))
        else {
            continue;
        };
        let key_ok = !key.is_empty() && key.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        // A group of `_` alone (`CONFIG_GROUP___CAMERA_ID`) names none.
        if group.iter().all(|&b| b == b'_') || !key_ok {
            continue;
        }
        // Each pair once (a file of 10 MiB repeating one define).
        if !seen.insert((group, key)) {
            continue;
        }
        let group: String = group.iter().filter(|&&b| b != b'_').map(|&b| b as char).collect();
        out.push((group, String::from_utf8_lossy(key).into_owned()));
    }
    out
}

/// The define groups (see [`group_defines`]) that name the config group
/// `group`: its name without a trailing number and without `-`, upper case
/// (`ds-example` is `DSEXAMPLE`, `sink0` `SINK`); deepstream-app's GIE
/// groups are also `GIE`, as NVIDIA's parser names their keys
/// (`CONFIG_GROUP_GIE_BATCH_SIZE`, read by `parse_gie` for both). One or
/// two, looked up whole (no scan of what was found).
pub fn define_groups_for(group: &str) -> Vec<String> {
    let base = group.trim_end_matches(|c: char| c.is_ascii_digit());
    let name: String = base
        .chars()
        .filter(|&c| c != '-' && c != '_')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let mut out = vec![name];
    if base == "primary-gie" || base == "secondary-gie" {
        out.push("GIE".to_string());
    }
    out
}

/// The names taken so far, each once.
#[derive(Default)]
struct Found<'a> {
    seen: std::collections::HashSet<&'a [u8]>,
    names: Vec<String>,
}

impl<'a> Found<'a> {
    /// Take `s` if it can be a key name and was not taken before.
    fn push(&mut self, s: &'a [u8]) {
        let name = !s.is_empty()
            && s.len() <= MAX_KEY
            && s.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if name && self.seen.insert(s) {
            self.names.push(String::from_utf8_lossy(s).into_owned());
        }
    }
}

/// The string literals among a call's arguments, up to its closing `)`.
fn arguments<'a>(mut rest: &'a [u8], out: &mut Found<'a>) {
    let end = rest.len().min(MAX_ARGS);
    rest = &rest[..end];
    let mut depth = 0usize;
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            b'"' => match literal(&rest[i..]) {
                Some((s, len)) => {
                    out.push(s);
                    i += len;
                    continue;
                }
                None => return,
            },
            b'(' => depth += 1,
            b')' if depth == 0 => return,
            b')' => depth -= 1,
            b';' | b'{' | b'}' => return,
            _ => {}
        }
        i += 1;
    }
}

/// A `"…"` literal at the start of `s` without escapes: its text and its
/// length in bytes with the quotes.
fn literal(s: &[u8]) -> Option<(&[u8], usize)> {
    let body = s.strip_prefix(b"\"")?;
    let close = body
        .iter()
        .take(MAX_KEY + 1)
        .position(|&b| b == b'"' || b == b'\\' || b == b'\n')?;
    (body[close] == b'"').then(|| (&body[..close], close + 2))
}

fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| b.is_ascii_whitespace()).count();
    &s[n..]
}

#[cfg(test)]
mod tests {
    use super::keys;

    fn sorted(text: &str) -> Vec<String> {
        let mut k = keys(text.as_bytes());
        k.sort();
        k.dedup();
        k
    }

    #[test]
    fn a_forked_key_file_reader() {
        let header = "#define CONFIG_GROUP_SOURCE_RTX \"do-retransmission\"\n#  define CONFIG_KEY_X  \"x-key\" // note\n#define OTHER \"not-a-key\"\n#define CONFIG_PATH \"/opt/a.txt\"\n";
        assert_eq!(sorted(header), ["do-retransmission", "x-key"]);
        let reader = r#"
            if (!g_strcmp0 (*key, "face-landmarks")) {
              v = g_key_file_get_integer (key_file, CONFIG_GROUP_PROPERTY,
                  "landmark-count", &error);
            }
            printf ("%s", "not read");
        "#;
        assert_eq!(sorted(reader), ["face-landmarks", "landmark-count"]);
    }

    #[test]
    fn a_define_names_the_group_that_reads_its_key() {
        use super::{define_groups_for, group_defines};
        let define_group_is =
            |define_group: &str, group: &str| define_groups_for(group).iter().any(|g| g == define_group);
        let header = "#define CONFIG_GROUP_DSEXAMPLE_CAMERA_ID \"camera-id\"\n\
            #define CONFIG_GROUP_TILED_DISPLAY_ROWS \"rows\"\n\
            #define CONFIG_GROUP_SOURCE_RTX \"do-retransmission\"\n\
            #define CONFIG_GROUP_CAMERA_ID \"camera-id\"\n\
            #define CONFIG_GPU_ID \"gpu-id\"\n";
        assert_eq!(
            group_defines(header.as_bytes()),
            [
                ("DSEXAMPLE".to_string(), "camera-id".to_string()),
                ("TILEDDISPLAY".to_string(), "rows".to_string())
            ]
        );
        // Indented, and a define that is no `#define` line.
        assert_eq!(
            group_defines(b"  #  define\tCONFIG_GROUP_SINK_SYNC \"sync\"\nx CONFIG_GROUP_SINK_TYPE \"type\"\n"),
            [("SINK".to_string(), "sync".to_string())]
        );
        // A group of `_` alone is none (the fuzz target's c_keys find).
        assert!(group_defines(b"#define CONFIG_GROUP___CAMERA_ID \"camera-id\"\n").is_empty());
        // One long line of macros: bounded work, nothing taken.
        let line = "CONFIG_GROUP_A_B \"b\" ".repeat(500_000);
        assert!(group_defines(line.as_bytes()).is_empty());
        assert!(define_group_is("DSEXAMPLE", "ds-example"));
        assert!(define_group_is("SINK", "sink0"));
        assert!(define_group_is("TILEDDISPLAY", "tiled-display"));
        assert!(define_group_is("GIE", "secondary-gie2"));
        assert!(!define_group_is("SOURCELIST", "source0"));
        assert!(!define_group_is("SOURCE", "streammux"));
        assert!(!define_group_is("GIE", "tracker"));
    }

    #[test]
    fn comparisons_count_only_in_a_reader() {
        // No g_key_file call: a strcmp of a string is no key read.
        assert!(sorted("if (!strcmp (name, \"batch-size\")) {}").is_empty());
        assert_eq!(
            sorted("std::string k = itr->first.as<std::string>(); YAML::Node n; if (k == \"my-key\") {}"),
            ["my-key"]
        );
        assert!(sorted("if (k == \"my-key\") {}").is_empty());
    }

    #[test]
    fn bounded_on_hostile_text() {
        let open = "g_key_file_get_string (".repeat(10_000);
        assert!(keys(open.as_bytes()).is_empty());
        assert!(keys(b"#define CONFIG_A \"unterminated").is_empty());
        let long = format!("#define CONFIG_A \"{}\"", "k".repeat(200));
        assert!(keys(long.as_bytes()).is_empty());
        // A name repeated a million times is taken once.
        let many = format!("g_key_file_get_x ({});\n", "\"a\", ".repeat(60)).repeat(20_000);
        assert_eq!(keys(many.as_bytes()), ["a"]);
    }
}
