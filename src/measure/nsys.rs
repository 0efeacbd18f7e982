//! `nsys stats` output in every shape nsys has printed it: CSV to stdout
//! (reports back to back after `Processing [...]` lines), CSV files
//! (`base_<report>.csv`), TSV, the aligned column format and the boxed table
//! format; old (`gpukernsum`, ≤2022.4) and new (`cuda_gpu_kern_sum`) report
//! names; old and new column spellings; `--timeunit` units; thousands
//! separators; NOTICE, SKIPPED and progress lines. Plus the
//! `gpu_metric_util_sum` recipe's `rank_stats.csv`.

use std::collections::BTreeMap;
use std::path::Path;

/// The reports dslint reads, by their current names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Report {
    KernSum,
    NvtxSum,
    NvtxPushPopSum,
    NvtxGpuProjSum,
    MemTimeSum,
    MemSizeSum,
    ApiSum,
    OsrtSum,
    GpuMetrics,
}

impl Report {
    pub const ALL: [Report; 9] = [
        Report::KernSum,
        Report::NvtxSum,
        Report::NvtxPushPopSum,
        Report::NvtxGpuProjSum,
        Report::MemTimeSum,
        Report::MemSizeSum,
        Report::ApiSum,
        Report::OsrtSum,
        Report::GpuMetrics,
    ];

    /// Current name first, then the names of nsys ≤ 2022.4.
    pub fn names(self) -> &'static [&'static str] {
        match self {
            Report::KernSum => &["cuda_gpu_kern_sum", "gpukernsum"],
            Report::NvtxSum => &["nvtx_sum", "nvtxsum"],
            Report::NvtxPushPopSum => &["nvtx_pushpop_sum", "nvtxppsum"],
            Report::NvtxGpuProjSum => &["nvtx_gpu_proj_sum"],
            Report::MemTimeSum => &["cuda_gpu_mem_time_sum", "gpumemtimesum"],
            Report::MemSizeSum => &["cuda_gpu_mem_size_sum", "gpumemsizesum"],
            Report::ApiSum => &["cuda_api_sum", "cudaapisum"],
            Report::OsrtSum => &["osrt_sum", "osrtsum"],
            Report::GpuMetrics => &["rank_stats", "gpu_metric_util_sum"],
        }
    }

    pub fn from_name(name: &str) -> Option<Report> {
        Report::ALL.into_iter().find(|r| r.names().contains(&name))
    }
}

/// The reports `dslint measure profile` asks `nsys stats` for.
pub const WANTED: &[Report] = &[
    Report::KernSum,
    Report::NvtxSum,
    Report::MemTimeSum,
    Report::ApiSum,
    Report::OsrtSum,
];

/// One table: normalized column names (unit suffix removed, old spellings
/// mapped to new ones) and rows of raw cells; times are in nanoseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub report: Report,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Multiplier from the header's time unit to nanoseconds.
    pub time_scale: f64,
}

impl Table {
    fn col(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }
    pub fn text(&self, row: &[String], name: &str) -> Option<String> {
        Some(row.get(self.col(name)?)?.trim().to_string())
    }
    pub fn number(&self, row: &[String], name: &str) -> Option<f64> {
        parse_number(row.get(self.col(name)?)?)
    }
    /// A time column in nanoseconds.
    pub fn ns(&self, row: &[String], name: &str) -> Option<f64> {
        Some(self.number(row, name)? * self.time_scale)
    }
}

/// A number as nsys prints it: `3,481,709`, `3481709`, `0.0`, `1,813.1`.
pub fn parse_number(s: &str) -> Option<f64> {
    let t = s.trim().trim_matches('"');
    if t.is_empty() {
        return None;
    }
    let grouped = t.contains(',')
        && t.split('.')
            .next()
            .is_some_and(|int| int.split(',').skip(1).all(|g| g.len() == 3));
    let cleaned = if grouped { t.replace(',', "") } else { t.to_string() };
    cleaned.parse().ok()
}

fn unit_scale(unit: &str) -> Option<f64> {
    Some(match unit {
        "ns" | "nsec" | "nanoseconds" => 1.0,
        "us" | "usec" | "microseconds" | "µs" => 1e3,
        "ms" | "msec" | "milliseconds" => 1e6,
        "s" | "sec" | "seconds" => 1e9,
        _ => return None,
    })
}

/// `Avg (ms)` → (`Avg`, 1e6); old spellings map to new names.
fn normalize_column(raw: &str) -> (String, Option<f64>) {
    let raw = raw.trim().trim_matches('"');
    let (base, unit) = match raw.rfind('(') {
        Some(i) if raw.ends_with(')') && !raw[..i].trim().is_empty() => (raw[..i].trim(), &raw[i + 1..raw.len() - 1]),
        _ => (raw, ""),
    };
    let base = match base {
        "Time(%)" => "Time",
        "Time" if unit == "%" => "Time",
        "Average" => "Avg",
        "Minimum" => "Min",
        "Maximum" => "Max",
        "Median" => "Med",
        "Operations" => "Count",
        "Total" => "Total",
        b => b,
    };
    (base.to_string(), unit_scale(unit))
}

/// Which report a header belongs to, when no `Processing` line said so
/// (formats.md §1.5).
fn report_from_header(cols: &[String], names: &[&str]) -> Option<Report> {
    let has = |c: &str| cols.iter().any(|x| x == c);
    if has("Metric Name") {
        return Some(Report::GpuMetrics);
    }
    if cols.first().is_some_and(|c| c == "Range") && has("Total Proj Time") {
        return Some(Report::NvtxGpuProjSum);
    }
    if has("Range") {
        return Some(if has("Style") {
            Report::NvtxSum
        } else {
            Report::NvtxPushPopSum
        });
    }
    if has("Operation") {
        return Some(if has("Total Time") {
            Report::MemTimeSum
        } else {
            Report::MemSizeSum
        });
    }
    if has("Instances") && has("Name") {
        return Some(Report::KernSum);
    }
    if has("Num Calls") {
        let cuda = names.iter().filter(|n| n.starts_with("cu")).count();
        return Some(if cuda * 2 >= names.len().max(1) {
            Report::ApiSum
        } else {
            Report::OsrtSum
        });
    }
    None
}

/// The report named on a framing line, if it is one.
fn framing_report(line: &str) -> Option<Option<Report>> {
    let t = line.trim();
    let name_in = |s: &str| -> Option<String> {
        let file = s.rsplit('/').next()?;
        Some(file.trim_end_matches(".py").split_whitespace().next()?.to_string())
    };
    if t.starts_with("Processing [") {
        let second = t.split("] with [").nth(1)?;
        let inner = second.split(']').next()?;
        return Some(name_in(inner).and_then(|n| Report::from_name(&n)));
    }
    if let Some(rest) = t.strip_prefix("Running [") {
        let inner = rest.split(']').next()?;
        let script = inner.split_whitespace().next()?;
        return Some(name_in(script).and_then(|n| Report::from_name(&n)));
    }
    if t.starts_with("** ") && t.ends_with("):") {
        let inner = t.rsplit_once('(')?.1.trim_end_matches("):");
        return Some(Report::from_name(inner));
    }
    if t.contains("Executing '") {
        let name = t.split('\'').nth(1)?;
        return Some(Report::from_name(name));
    }
    None
}

fn is_noise(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("NOTICE:")
        || t.starts_with("SKIPPED:")
        || t.starts_with("WARNING:")
        || t.starts_with("ERROR:")
        || t.starts_with("Generating ")
        || t.starts_with("Using ")
        || t.starts_with("It is assumed")
        || t.starts_with("Consider using")
        || (t.starts_with('[') && t.contains("%]"))
}

fn split_csv(line: &str, sep: u8) -> Vec<String> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .delimiter(sep)
        .flexible(true)
        .from_reader(line.as_bytes());
    r.records()
        .next()
        .and_then(Result::ok)
        .map(|rec| rec.iter().map(str::to_string).collect())
        .unwrap_or_default()
}

fn looks_like_header(cells: &[String]) -> bool {
    let joined = cells.join("|");
    cells.len() >= 3
        && (joined.contains("Time (%)")
            || joined.contains("Time(%)")
            || joined.contains("Total (MB)")
            || joined.contains("Metric Name")
            || joined.contains("Total Proj Time")
            || (joined.contains("Operation") && joined.contains("Total")))
}

/// Column spans from a dashes line (`--------  -----  ----`).
fn dash_spans(line: &str) -> Option<Vec<(usize, usize)>> {
    let t = line.trim_end();
    if t.trim().is_empty() || !t.trim().chars().all(|c| c == '-' || c == ' ') || !t.contains("--") {
        return None;
    }
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in t.char_indices() {
        match (c, start) {
            ('-', None) => start = Some(i),
            (' ', Some(s)) => {
                spans.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push((s, t.len()));
    }
    Some(spans)
}

fn cut_columns(line: &str, spans: &[(usize, usize)]) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    for (i, (s, _)) in spans.iter().enumerate() {
        // A cell runs from its column's start to the next column's start,
        // so right-aligned numbers that overflow to the left still fit.
        let start = if i == 0 { 0 } else { spans[i - 1].1 };
        let end = if i + 1 < spans.len() {
            spans[i + 1].0
        } else {
            chars.len()
        };
        let _ = s;
        let cell: String = chars
            .get(start.min(chars.len())..end.min(chars.len()))
            .map(|c| c.iter().collect())
            .unwrap_or_default();
        out.push(cell.trim().to_string());
    }
    out
}

fn finish(report: Option<Report>, header: Vec<String>, rows: Vec<Vec<String>>, out: &mut Vec<Table>) {
    let normalized: Vec<(String, Option<f64>)> = header.iter().map(|h| normalize_column(h)).collect();
    let columns: Vec<String> = normalized.iter().map(|(c, _)| c.clone()).collect();
    let time_scale = normalized
        .iter()
        .find(|(c, _)| c == "Total Time" || c == "Avg")
        .and_then(|(_, s)| *s)
        .unwrap_or(1.0);
    let names: Vec<&str> = rows.iter().filter_map(|r| r.last().map(String::as_str)).collect();
    let Some(report) = report.or_else(|| report_from_header(&columns, &names)) else {
        return;
    };
    out.push(Table {
        report,
        columns,
        rows,
        time_scale,
    });
}

/// Parse any `nsys stats` console output or CSV/TSV file into tables.
pub fn parse(text: &str) -> Vec<Table> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut current: Option<Report> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(r) = framing_report(line) {
            current = r;
            i += 1;
            continue;
        }
        if is_noise(line) || line.trim().is_empty() {
            i += 1;
            continue;
        }
        let t = line.trim();
        // Boxed table format.
        if t.starts_with("+-") {
            if let Some(h) = lines.get(i + 1).filter(|l| l.trim().starts_with('|')) {
                let cells = |l: &str| -> Vec<String> {
                    let s = l.trim();
                    s.trim_start_matches('|')
                        .trim_end_matches('|')
                        .split('|')
                        .map(|c| c.trim().to_string())
                        .collect()
                };
                let header = cells(h);
                let mut rows = Vec::new();
                let mut j = i + 2;
                while j < lines.len() && (lines[j].trim().starts_with('|') || lines[j].trim().starts_with("+-")) {
                    if lines[j].trim().starts_with('|') {
                        rows.push(cells(lines[j]));
                    }
                    j += 1;
                }
                finish(current.take(), header, rows, &mut out);
                i = j;
                continue;
            }
        }
        // Column format: header, then a dashes line.
        if let Some(spans) = lines.get(i + 1).and_then(|l| dash_spans(l)) {
            let header = cut_columns(line, &spans);
            let mut rows = Vec::new();
            let mut j = i + 2;
            while j < lines.len()
                && !lines[j].trim().is_empty()
                && !is_noise(lines[j])
                && framing_report(lines[j]).is_none()
            {
                rows.push(cut_columns(lines[j], &spans));
                j += 1;
            }
            finish(current.take(), header, rows, &mut out);
            i = j;
            continue;
        }
        // CSV or TSV.
        let sep = if t.contains('\t') { b'\t' } else { b',' };
        let header = split_csv(t, sep);
        if looks_like_header(&header) {
            let mut rows = Vec::new();
            let mut j = i + 1;
            while j < lines.len()
                && !lines[j].trim().is_empty()
                && !is_noise(lines[j])
                && framing_report(lines[j]).is_none()
            {
                let row = split_csv(lines[j].trim(), sep);
                if row.len() == header.len() {
                    rows.push(row);
                }
                j += 1;
            }
            finish(current.take(), header, rows, &mut out);
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

/// Read the CSV files of `nsys stats --format csv --output BASE` from a
/// folder (`BASE_<report>.csv`) and a recipe's `rank_stats.csv`.
pub fn read_dir(dir: &Path) -> Result<Vec<Table>, String> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        let Some(stem) = name.strip_suffix(".csv").or_else(|| name.strip_suffix(".csv.txt")) else {
            continue;
        };
        let report = Report::from_name(stem).or_else(|| {
            Report::ALL
                .into_iter()
                .find(|r| r.names().iter().any(|n| stem.ends_with(&format!("_{n}"))))
        });
        let text = crate::files::read::read_text(&p, crate::files::read::MAX_FILE_BYTES)?;
        let mut tables = parse(&text);
        for t in &mut tables {
            if let Some(r) = report {
                t.report = r;
            }
        }
        out.extend(tables);
    }
    if out.is_empty() {
        return Err(format!(
            "{}: no nsys stats CSV files (expected BASE_cuda_gpu_kern_sum.csv and others)",
            dir.display()
        ));
    }
    Ok(out)
}

/// Normalize an NVTX range name: drop the `domain:` prefix and the
/// `Frame=`, `Batch=`, `UID=` parts, so one element's ranges group together.
pub fn normalize_range(name: &str) -> String {
    let name = name.trim();
    let name = match name.split_once(':') {
        Some((domain, rest)) if !domain.contains(' ') && !rest.starts_with(':') => rest,
        _ => name,
    };
    let kept: Vec<&str> = name
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .filter(|w| {
            let lw = w.to_ascii_lowercase();
            !(lw.starts_with("frame=")
                || lw.starts_with("batch=")
                || lw.starts_with("uid=")
                || lw.starts_with("frame_num=")
                || lw.starts_with("batch_num="))
        })
        .collect();
    kept.join(" ")
}

/// Totals per name of a report (summed over rows with the same name).
pub fn totals(tables: &[Table], report: Report, name_col: &str) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for t in tables.iter().filter(|t| t.report == report) {
        for r in &t.rows {
            if let (Some(n), Some(v)) = (t.text(r, name_col), t.ns(r, "Total Time")) {
                *out.entry(n).or_insert(0.0) += v;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(parse_number("3,481,709"), Some(3481709.0));
        assert_eq!(parse_number("1,813.1"), Some(1813.1));
        assert_eq!(parse_number("0.000"), Some(0.0));
        assert_eq!(parse_number(""), None);
    }

    #[test]
    fn range_names() {
        assert_eq!(normalize_range(":Profile_Loop"), "Profile_Loop");
        assert_eq!(normalize_range("NCCL:ncclAllGather"), "ncclAllGather");
        assert_eq!(normalize_range("nvinfer Frame=12 Batch=3 UID=1"), "nvinfer");
    }
}
