//! nvdsanalytics configs (DS801–DS803): the coordinate lists its parser
//! refuses or misreads, points outside its coordinate space, and stream
//! groups no stream of the pipeline has.
//!
//! What the parser does (DS 9.1 `gst-nvdsanalytics/nvdsanalytics_property_parser.cpp`):
//! `nvdsanalytics_parse_config_file` reads the file with GLib (list
//! separator `;`) and hands each `roi-filtering-stream-N`,
//! `overcrowding-stream-N`, `line-crossing-stream-N` and
//! `direction-detection-stream-N` group to its parser with N from
//! `g_ascii_strtoull`. Each reads its coordinate keys with
//! `g_key_file_get_integer_list` (an item that is no integer is an error,
//! which fails the element) and refuses a negative coordinate
//! (`CHECK_INT_VALUE_NON_NEGATIVE`). `roi-<label>` is read two values at a
//! time (`roi_list[icnt + 1]`: an odd count reads past the list);
//! `line-crossing-<label>` always reads eight values (direction x1;y1;x2;y2,
//! then the line) and `direction-<label>` four, whatever the count. The
//! coordinates are in `config-width` × `config-height` (`[property]`), which
//! the element scales to each frame.
//!
//! A config named `.yml`/`.yaml` goes to `nvdsanalytics_parse_yaml_config_file`
//! (`nvdsanalytics_property_yaml_parser.cpp`) instead: the same group names
//! and stream index, but each coordinate list is split at every `;` (an
//! empty last piece kept) and read with `std::stoi`. For those only what
//! reads the same is checked ([`check_yaml`]).

use crate::base::FileId;
use crate::base::diagnostic::Diagnostic;
use crate::base::rule::Rule;
use crate::model::detect::analytics_stream_group;
use crate::rules::context::Ctx;
use crate::syntax::{Format, Group, glib};

/// What one coordinate key holds, by its key prefix.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `roi-<label>`: a polygon, x;y pairs.
    Polygon,
    /// `line-crossing-<label>`: exactly 8 values.
    LineCrossing,
    /// `direction-<label>`: exactly 4 values.
    Direction,
}

/// The coordinate key's shape in a group of this kind, if it is one.
fn shape(group_prefix: &str, key: &str) -> Option<Shape> {
    match group_prefix {
        "roi-filtering-stream-" | "overcrowding-stream-" => key.starts_with("roi-").then_some(Shape::Polygon),
        "line-crossing-stream-" => key.starts_with("line-crossing-").then_some(Shape::LineCrossing),
        "direction-detection-stream-" => key.starts_with("direction-").then_some(Shape::Direction),
        _ => None,
    }
}

/// The key prefix a group of this kind must hold.
fn coordinate_key(group_prefix: &str) -> &'static str {
    match group_prefix {
        "line-crossing-stream-" => "line-crossing-",
        "direction-detection-stream-" => "direction-",
        _ => "roi-",
    }
}

/// Check one nvdsanalytics config. `streams`: the stream count of every
/// pipeline that loads it, when all are known (`None`: unknown or loaded by
/// none, and the stream check is silent).
pub fn check(ctx: &Ctx, file: FileId, streams: Option<u32>, out: &mut Vec<Diagnostic>) {
    let f = &ctx.ws.files[file];
    let doc = &f.doc;
    // A file its reader refuses has its DS001 and nothing else.
    if !doc.errors.is_empty() {
        return;
    }
    if doc.format == Format::Yaml {
        // The plugin picks its YAML reader by the name; a YAML text under
        // another name goes to GLib, which refuses it.
        let named_yaml = f.path.extension().is_some_and(|x| x == "yml" || x == "yaml");
        if named_yaml {
            check_yaml(ctx, file, streams, out);
        }
        return;
    }
    let (width, height) = config_size(doc, glib::parse_int);
    let mut seen = std::collections::HashSet::new();
    for g in &doc.groups {
        let Some((prefix, index)) = analytics_stream_group(&g.name) else {
            continue;
        };
        // GLib merges a repeated group: judge the merged one, once.
        let first = seen.insert(g.name.clone());
        // A group without its coordinate key: each group parser ends with
        // PARSE_ERROR ("ROI not specified in group", "… not specified in
        // group"), enabled or not.
        let has_coordinates = || {
            doc.groups_named(&g.name)
                .flat_map(|g| &g.entries)
                .any(|e| shape(prefix, &e.key).is_some())
        };
        if first && !has_coordinates() {
            out.push(
                Diagnostic::new(
                    Rule::AnalyticsCoordinates,
                    file,
                    g.name_span.clone(),
                    format!("[{}] has no {}<label> key", g.name, coordinate_key(prefix)),
                )
                .expected(format!("a {}<label>=… line, or no [{}] group", coordinate_key(prefix), g.name))
                .why("its group parser fails (\"… not specified in group\"), even with enable=0, and nvdsanalytics refuses the config: the element does not start (nvdsanalytics_property_parser.cpp)"),
            );
        }
        // DS802/DS803 judge what the element applies; a group that is off
        // applies nowhere. DS801 stays: the parser reads every group.
        let on = group_enabled(doc, &g.name, glib::parse_bool) == Some(true);
        if first && on {
            stream_unused(file, g, index, streams, out);
        }
        for e in &g.entries {
            let Some(shape) = shape(prefix, &e.key) else {
                continue;
            };
            // Only the line GLib keeps (a repeated key's last).
            if doc.get(&g.name, &e.key).is_none_or(|w| w.spans.key() != e.spans.key()) {
                continue;
            }
            let Some(raw) = e.value.as_deref() else { continue };
            let Ok(items) = glib::split_list(raw) else { continue };
            let values: Vec<Option<i64>> = items.iter().map(|i| glib::parse_int(i)).collect();
            let bad = |msg: String, why: &str| {
                Diagnostic::new(Rule::AnalyticsCoordinates, file, e.spans.value(), msg)
                    .why(format!("{why} (nvdsanalytics_property_parser.cpp)"))
            };
            if let Some(i) = values.iter().position(Option::is_none) {
                out.push(
                    bad(
                        format!("`{}` in {} is not an integer", items[i].trim(), e.key),
                        "g_key_file_get_integer_list fails, and nvdsanalytics refuses the config: the element does not start",
                    )
                    .expected("integers x1;y1;x2;y2;…"),
                );
                continue;
            }
            let values: Vec<i64> = values.into_iter().flatten().collect();
            if let Some(v) = values.iter().find(|v| **v < 0) {
                out.push(
                    bad(
                        format!("{} has a negative coordinate ({v})", e.key),
                        "CHECK_INT_VALUE_NON_NEGATIVE refuses it: the element does not start",
                    )
                    .expected("coordinates ≥ 0"),
                );
                continue;
            }
            let n = values.len();
            let count_problem = match shape {
                Shape::Polygon if n % 2 == 1 => Some((
                    format!("{} has {n} values: the last x has no y", e.key),
                    "the parser reads the ROI two values at a time and reads past the end of the list",
                    "an even count, x;y per point",
                )),
                Shape::Polygon if n < 6 => Some((
                    format!(
                        "{} has {} point{}: no area",
                        e.key,
                        n / 2,
                        if n == 2 { "" } else { "s" }
                    ),
                    "an ROI of fewer than 3 points encloses nothing, so no object is ever inside it",
                    "at least 3 points",
                )),
                Shape::LineCrossing if n != 8 => Some((
                    format!("{} has {n} values", e.key),
                    "the parser always reads 8 (direction x1;y1;x2;y2, then the line x1;y1;x2;y2): fewer reads past the list, more are ignored",
                    "8 values",
                )),
                Shape::Direction if n != 4 => Some((
                    format!("{} has {n} values", e.key),
                    "the parser reads the direction as x1;y1;x2;y2: fewer reads past the list, more are ignored",
                    "4 values",
                )),
                _ => None,
            };
            if let Some((msg, why, expected)) = count_problem {
                out.push(bad(msg, why).expected(expected));
                continue;
            }
            // DS802: a point outside the coordinate space. A direction
            // (`direction-<label>`, and the first four values of
            // `line-crossing-<label>`) is a vector: nvdsanalytics keeps it
            // as one (`DirectionInfo::dir_data`, `LineCrossingInfo::lc_dir`
            // in `nvds_analytics.h`, the x2−x1, y2−y1 unit vector), so
            // where its ends lie places nothing in the frame: not judged.
            let placed = match shape {
                Shape::Direction => &values[..0],
                Shape::LineCrossing => &values[4..],
                Shape::Polygon => &values[..],
            };
            if let (Some(w), Some(h), true) = (width, height, on) {
                if let Some(p) = placed.chunks(2).find(|p| p[0] > w || p.get(1).is_some_and(|y| *y > h)) {
                    let y = p.get(1).map_or(String::new(), |y| format!(";{y}"));
                    out.push(
                        Diagnostic::new(
                            Rule::AnalyticsPointOutside,
                            file,
                            e.spans.value(),
                            format!("{} has the point {}{y} outside config-width × config-height ({w}×{h})", e.key, p[0]),
                        )
                        .expected(format!("0 ≤ x ≤ {w}, 0 ≤ y ≤ {h}"))
                        .why("coordinates are in [property] config-width × config-height, scaled to each frame: this point lies beyond the frame"),
                    );
                }
            }
        }
    }
}

/// `[property] config-width` and `config-height`, read with `parse`
/// (GLib's integer reader or YAML's); `None` when unset, unreadable or
/// negative.
fn config_size(doc: &crate::syntax::Document, parse: impl Fn(&str) -> Option<i64>) -> (Option<i64>, Option<i64>) {
    let dim = |key: &str| {
        doc.get("property", key)
            .and_then(|e| e.value.as_deref())
            .and_then(&parse)
            .filter(|v| *v >= 0)
    };
    (dim("config-width"), dim("config-height"))
}

/// Whether the element applies a per-stream group, as its parser reads
/// `enable`: each group parser starts from `gboolean enable = FALSE` and
/// only an `enable` key turns it on (`nvdsanalytics_property_parser.cpp`,
/// `nvdsanalytics_property_yaml_parser.cpp`), and `gstnvdsanalytics.cpp`
/// skips a group that is off (`if (!roi.enable)`, the same for lines,
/// directions and overcrowding). `parse`: the reader's boolean (GLib's, or
/// yaml-cpp's `as<gboolean>`, an integer). `None`: a value the reader
/// refuses.
fn group_enabled(doc: &crate::syntax::Document, group: &str, parse: impl Fn(&str) -> Option<bool>) -> Option<bool> {
    match doc.get(group, "enable") {
        None => Some(false),
        Some(e) => e.value.as_deref().and_then(parse),
    }
}

/// DS803: a group for a stream the pipeline does not have.
fn stream_unused(file: FileId, g: &Group, index: Option<u64>, streams: Option<u32>, out: &mut Vec<Diagnostic>) {
    let (Some(n), Some(index)) = (streams, index) else {
        return;
    };
    if index >= u64::from(n) {
        out.push(
            Diagnostic::new(
                Rule::AnalyticsStreamUnused,
                file,
                g.name_span.clone(),
                format!(
                    "[{}] is for stream {index}, but the pipeline has {n} stream{}",
                    g.name,
                    if n == 1 { "" } else { "s" }
                ),
            )
            .expected(format!("a stream index below {n}"))
            .why("nvdsanalytics keys its settings by the frame's stream index (0…streams−1): this group never applies"),
        );
    }
}

/// A YAML nvdsanalytics config, as `nvdsanalytics_parse_yaml_config_file`
/// reads it: DS803 as for a key-file (same group names, same
/// `g_ascii_strtoull` index), and DS802 for the `roi-<label>` polygons of
/// `roi-filtering-stream-N`/`overcrowding-stream-N` whose every piece is a
/// plain non-negative integer in an even count (`split_string` at `;`, then
/// `std::stoi` two at a time). Anything else (what `std::stoi` makes of
/// other text, odd counts, line-crossing and direction lists) is not
/// judged.
fn check_yaml(ctx: &Ctx, file: FileId, streams: Option<u32>, out: &mut Vec<Diagnostic>) {
    let doc = &ctx.ws.files[file].doc;
    let (width, height) = config_size(doc, |v| v.trim().parse::<i64>().ok());
    let mut seen = std::collections::HashSet::new();
    for g in &doc.groups {
        let Some((prefix, index)) = analytics_stream_group(&g.name) else {
            continue;
        };
        if !seen.insert(g.name.clone()) {
            continue;
        }
        let as_int = |v: &str| v.trim().parse::<i64>().ok().map(|v| v != 0);
        if group_enabled(doc, &g.name, as_int) != Some(true) {
            continue;
        }
        stream_unused(file, g, index, streams, out);
        let (Some(w), Some(h)) = (width, height) else { continue };
        for e in &g.entries {
            if shape(prefix, &e.key) != Some(Shape::Polygon) {
                continue;
            }
            let Some(raw) = e.value.as_deref() else { continue };
            let values: Option<Vec<i64>> = raw
                .split(';')
                .map(|p| {
                    let p = p.trim();
                    (!p.is_empty() && p.len() <= 9 && p.bytes().all(|b| b.is_ascii_digit()))
                        .then(|| p.parse().ok())
                        .flatten()
                })
                .collect();
            let Some(values) = values.filter(|v| v.len() % 2 == 0) else {
                continue;
            };
            if let Some(p) = values.chunks(2).find(|p| p[0] > w || p[1] > h) {
                out.push(
                    Diagnostic::new(
                        Rule::AnalyticsPointOutside,
                        file,
                        e.spans.value(),
                        format!(
                            "{} has the point {};{} outside config-width × config-height ({w}×{h})",
                            e.key, p[0], p[1]
                        ),
                    )
                    .expected(format!("0 ≤ x ≤ {w}, 0 ≤ y ≤ {h}"))
                    .why("coordinates are in property config-width × config-height, scaled to each frame: this point lies beyond the frame (nvdsanalytics_property_yaml_parser.cpp)"),
                );
            }
        }
    }
}
