//! A table of a report: a header and rows of text cells, laid out by each renderer.

/// Rows of cells under a header; every row has one cell per header column.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: Vec<String>) -> Self {
        Table { header, rows: Vec::new() }
    }

    /// Append a row; it must have one cell per header column.
    pub fn push(&mut self, row: Vec<String>) {
        debug_assert_eq!(row.len(), self.header.len(), "row width must match the header");
        self.rows.push(row);
    }

    pub fn header(&self) -> &[String] {
        &self.header
    }

    pub fn rows(&self) -> &[Vec<String>] {
        &self.rows
    }

    /// Each column's width in characters: its widest cell as `shown` writes it, at least `least`.
    pub fn widths(&self, shown: impl Fn(&str) -> String, least: usize) -> Vec<usize> {
        let width = |column: usize| {
            let cells = std::iter::once(&self.header).chain(&self.rows).map(|row| shown(&row[column]).chars().count());
            cells.max().unwrap_or(0).max(least)
        };
        (0..self.header.len()).map(width).collect()
    }
}
