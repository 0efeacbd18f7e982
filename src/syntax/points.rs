//! Rows and columns of byte offsets, as tree-sitter's included ranges want
//! them: the Python and shell readers parse a large file in pieces, each
//! piece a range with its start and end point.

use std::collections::HashMap;

use tree_sitter::Point;

/// The row and column of each offset of `at` (in order), in one pass over
/// the text up to the last.
pub fn points(text: &str, at: &[usize]) -> HashMap<usize, Point> {
    let b = text.as_bytes();
    let (mut row, mut line_start, mut counted) = (0, 0, 0);
    let mut out = HashMap::with_capacity(at.len());
    for &a in at {
        for (i, &c) in b[counted..a].iter().enumerate() {
            if c == b'\n' {
                row += 1;
                line_start = counted + i + 1;
            }
        }
        counted = a;
        out.insert(
            a,
            Point {
                row,
                column: a - line_start,
            },
        );
    }
    out
}
