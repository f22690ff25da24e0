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

    /// The table as lines of text: every cell as `shown` writes it, padded to its column's widest (at
    /// least `least` characters), each row joined by `line`; under the header a rule of dashes as wide.
    pub fn laid_out(&self, shown: impl Fn(&str) -> String, least: usize, line: impl Fn(&[String]) -> String) -> String {
        let width = |column: usize| {
            let cells = std::iter::once(&self.header).chain(&self.rows).map(|row| shown(&row[column]).chars().count());
            cells.max().unwrap_or(0).max(least)
        };
        let widths: Vec<usize> = (0..self.header.len()).map(width).collect();
        let padded = |cells: &[String]| {
            line(&cells.iter().zip(&widths).map(|(cell, w)| format!("{:<w$}", shown(cell))).collect::<Vec<_>>())
        };
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        let mut out = padded(&self.header);
        out.push_str(&line(&rule));
        self.rows.iter().for_each(|row| out.push_str(&padded(row)));
        out
    }
}
