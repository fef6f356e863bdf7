//! Plain-text tables with aligned columns.
use std::fmt::{self, Display};

/// Column alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text.
    Left,
    /// Numbers.
    Right,
}

/// A table: a header row, then rows of cells (a row of one cell spans the table, e.g. `...`).
pub struct Table {
    columns: Vec<(&'static str, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column titles and alignments.
    pub fn new(columns: &[(&'static str, Align)]) -> Table {
        Table { columns: columns.to_vec(), rows: vec![] }
    }

    /// Appends a row.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }
}

impl Display for Table {
    /// Two-space indented, columns separated by two spaces, no trailing spaces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let titles: Vec<String> = self.columns.iter().map(|(t, _)| t.to_string()).collect();
        let rows = std::iter::once(&titles).chain(&self.rows);
        let mut widths: Vec<usize> = vec![0; self.columns.len()];
        for row in rows.clone().filter(|r| r.len() > 1) {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        for row in rows {
            let mut line = String::from(" ");
            for ((cell, w), (_, align)) in row.iter().zip(&widths).zip(&self.columns) {
                let w = if row.len() > 1 { *w } else { 0 };
                match align {
                    Align::Left => line += &format!(" {cell:<w$} "),
                    Align::Right => line += &format!(" {cell:>w$} "),
                }
            }
            writeln!(f, "{}", line.trim_end())?;
        }
        Ok(())
    }
}
