//! `nvidia-smi dmon` output: two `#` header lines (names, then units) that
//! repeat in long runs, right-aligned columns, `-` for not available, and
//! column sets that depend on the driver and on `-s`/`-o`.

use std::collections::BTreeMap;

/// One row: the GPU index and its named values (`None` for `-`).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub gpu: u32,
    pub values: BTreeMap<String, Option<f64>>,
}

/// Reads dmon output a line at a time (a live dmon is read as it prints).
#[derive(Default)]
pub struct Parser {
    names: Vec<String>,
}

impl Parser {
    /// The row on this line, if it is one; header lines set the columns.
    pub fn line(&mut self, line: &str) -> Option<Row> {
        let t = line.trim();
        if let Some(h) = t.strip_prefix('#') {
            let cols: Vec<String> = h.split_whitespace().map(str::to_ascii_lowercase).collect();
            // The first header names the columns; the second gives units.
            if cols.iter().any(|c| c == "gpu") {
                self.names = cols;
            }
            return None;
        }
        let vals: Vec<&str> = t.split_whitespace().collect();
        if self.names.is_empty() || vals.len() != self.names.len() {
            return None;
        }
        let gpu = self
            .names
            .iter()
            .position(|n| n == "gpu")
            .and_then(|i| vals[i].parse().ok())?;
        let values = self
            .names
            .iter()
            .zip(&vals)
            .map(|(n, v)| (n.clone(), v.parse::<f64>().ok()))
            .collect();
        Some(Row { gpu, values })
    }
}

pub fn parse(text: &str) -> Vec<Row> {
    let mut p = Parser::default();
    text.lines().filter_map(|l| p.line(l)).collect()
}

/// Raise `max` to the row's values (columns shown as `-` are skipped).
pub fn fold_max(max: &mut BTreeMap<String, f64>, row: &Row) {
    for (k, v) in &row.values {
        if let Some(v) = v {
            let e = max.entry(k.clone()).or_insert(*v);
            *e = e.max(*v);
        }
    }
}

/// Per-column maxima of one GPU's rows (sm, mem, dec, …).
pub fn maxima(rows: &[Row], gpu: u32) -> BTreeMap<String, f64> {
    let mut out: BTreeMap<String, f64> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.gpu == gpu) {
        fold_max(&mut out, r);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_and_repeated_headers() {
        let t = "# gpu     sm    mem    enc    dec    jpg    ofa \n# Idx      %      %      %      %      %      % \n    0     35     12      0     80      0      0 \n    1      -      -      -      -      -      - \n# gpu     sm    mem    enc    dec    jpg    ofa \n# Idx      %      %      %      %      %      % \n    0     70      9      0     60      0      0 \n";
        let rows = parse(t);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[1].values["sm"], None);
        let m = maxima(&rows, 0);
        assert_eq!((m["sm"], m["mem"], m["dec"]), (70.0, 12.0, 80.0));
        let dt = "#Date        Time         gpu     sm    mem    enc    dec    jpg    ofa \n#YYYYMMDD    HH:MM:SS     Idx      %      %      %      %      %      % \n 20261129    22:13:46       0     5      1      0      0      0      0 \n";
        let rows = parse(dt);
        assert_eq!(rows[0].values["sm"], Some(5.0));
    }
}
