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

    /// The table as blocks of its columns, each no wider than `widest` characters as a pipe table lays it
    /// out (`| a | b |`, every column at least 3 wide): the first `kept` columns (what names a row) lead
    /// every block, the others follow in order, as many to a block as fit (one at least).
    pub fn in_blocks(self, kept: usize, widest: usize) -> Vec<Table> {
        let width = |column: usize| {
            let cells = std::iter::once(&self.header).chain(&self.rows).map(|row| row[column].chars().count());
            cells.max().unwrap_or(0).max(3) + 3
        };
        let lead = 1 + (0..kept).map(width).sum::<usize>();
        let (mut blocks, mut used): (Vec<Vec<usize>>, usize) = (Vec::new(), lead);
        for column in kept..self.header.len() {
            match blocks.last_mut() {
                Some(block) if used + width(column) <= widest => block.push(column),
                _ => {
                    blocks.push(vec![column]);
                    used = lead;
                }
            }
            used += width(column);
        }
        if blocks.len() < 2 {
            return vec![self];
        }
        blocks.iter().map(|block| self.columns((0..kept).chain(block.iter().copied()))).collect()
    }

    /// A table of only `columns`, in that order.
    fn columns(&self, columns: impl Iterator<Item = usize> + Clone) -> Table {
        let pick = |row: &Vec<String>| columns.clone().map(|column| row[column].clone()).collect();
        Table { header: pick(&self.header), rows: self.rows.iter().map(pick).collect() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wide_table_splits_into_blocks_that_each_repeat_the_leading_columns() {
        let mut table = Table::new(["rows", "a", "b", "c"].map(String::from).to_vec());
        table.push(["512", &"x".repeat(40), &"y".repeat(40), &"z".repeat(10)].map(String::from).to_vec());
        let markdown =
            |table: &Table| table.laid_out(str::to_string, 3, |cells| format!("| {} |\n", cells.join(" | ")));
        assert!(markdown(&table).lines().any(|line| line.chars().count() > 100));
        let blocks = table.clone().in_blocks(1, 100);
        let headers: Vec<Vec<&str>> =
            blocks.iter().map(|block| block.header().iter().map(String::as_str).collect()).collect();
        assert_eq!(headers, [vec!["rows", "a", "b"], vec!["rows", "c"]]);
        assert!(blocks.iter().all(|block| markdown(block).lines().all(|line| line.chars().count() <= 100)));
        assert_eq!(table.clone().in_blocks(1, 200), [table], "a table that fits stays whole");
    }
}
