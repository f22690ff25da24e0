//! A pipe table with padded columns, the shape of every table in a report.

/// Rows of cells rendered as a GitHub-flavoured markdown table.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkdownTable {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl MarkdownTable {
    pub fn new(header: Vec<String>) -> Self {
        MarkdownTable { header, rows: Vec::new() }
    }

    /// Append a row; it must have one cell per header column.
    pub fn push(&mut self, row: Vec<String>) {
        debug_assert_eq!(row.len(), self.header.len(), "row width must match the header");
        self.rows.push(row);
    }

    /// Columns padded to their widest cell (at least the three dashes of the rule) so the source
    /// reads as a table too.
    pub fn render(&self) -> String {
        let widths: Vec<usize> = (0..self.header.len())
            .map(|c| {
                std::iter::once(&self.header).chain(&self.rows).map(|r| r[c].chars().count()).max().unwrap_or(0).max(3)
            })
            .collect();
        let line = |cells: &[String]| {
            let padded: Vec<String> = cells.iter().zip(&widths).map(|(cell, w)| format!("{cell:<w$}")).collect();
            format!("| {} |\n", padded.join(" | "))
        };
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        let mut out = line(&self.header);
        out.push_str(&format!("| {} |\n", rule.join(" | ")));
        for row in &self.rows {
            out.push_str(&line(row));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_padded_to_the_widest_cell() {
        let mut table = MarkdownTable::new(vec!["slices".into(), "mean".into()]);
        table.push(vec!["1".into(), "875.8 ± 28.3".into()]);
        assert_eq!(table.render(), "| slices | mean         |\n| ------ | ------------ |\n| 1      | 875.8 ± 28.3 |\n");
    }

    #[test]
    fn narrow_columns_are_as_wide_as_the_rule() {
        let mut table = MarkdownTable::new(vec!["n".into()]);
        table.push(vec!["3".into()]);
        assert_eq!(table.render(), "| n   |\n| --- |\n| 3   |\n");
    }
}
