//! The text of `gpucomp inspect`: the library returns what a stream and its chunks hold
//! (`gpucomp::container`, `gpucomp::cpu::*::describe`), and these modules lay it out as lines and
//! tables: [`stream`] the container, header fields and chunk table, [`cascaded`], [`bitcomp`],
//! [`ans`] and [`zstd`] the inside of a chunk.
pub mod ans;
pub mod bitcomp;
pub mod cascaded;
pub mod stream;
pub mod zstd;

use crate::table::Table;

/// Adds rows `0..n` to `table` (`row(i)` makes row `i`), or only the first and last `limit`
/// with a `... k {what} not shown ...` row between when there are more than `2 * limit`.
pub fn fill(table: &mut Table, n: usize, limit: usize, what: &str, row: impl Fn(usize) -> Vec<String>) {
    let shown: Vec<usize> = if n > 2 * limit { (0..limit).chain(n - limit..n).collect() } else { (0..n).collect() };
    for (k, &i) in shown.iter().enumerate() {
        if k > 0 && shown[k - 1] + 1 != i {
            table.row(vec![format!("... {} {what} not shown ...", i - shown[k - 1] - 1)]);
        }
        table.row(row(i));
    }
}

/// `1 block`, `3 blocks`.
pub fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// `a ×3, b ×1`.
pub fn counted<T>(items: &[(T, usize)], name: impl Fn(&T) -> String) -> String {
    items.iter().map(|(t, c)| format!("{} ×{c}", name(t))).collect::<Vec<_>>().join(", ")
}
