//! Whether a row's bytes are quoted as the `csv` crate writes rows (RFC 4180). `simd-csv` reads rows
//! leniently: a quote inside a cell that does not start with one opens a quoted run that can take the rest
//! of the file into that cell (rows gone without a word), and a lone `\r` is part of a cell. The `csv`
//! crate, which writes the file and reads its header, and most other readers read such bytes otherwise: a
//! row that readers would read differently is refused rather than read one way.

/// Why `row` (without its line end) is not quoted as the `csv` crate writes rows, if it is not.
pub fn quoting_refusal(row: &[u8]) -> Option<&'static str> {
    // Most rows hold neither: one vectorised pass and done.
    memchr::memchr2(b'"', b'\r', row)?;
    let mut start = 0;
    loop {
        match cell_end(row, start) {
            Err(reason) => return Some(reason),
            Ok(end) if end == row.len() => return None,
            Ok(comma) => start = comma + 1,
        }
    }
}

/// Where the cell starting at byte `start` ends (at its comma, or the row's end), or why it is no cell.
fn cell_end(row: &[u8], start: usize) -> Result<usize, &'static str> {
    if row.get(start) != Some(&b'"') {
        let end = memchr::memchr(b',', &row[start..]).map_or(row.len(), |comma| start + comma);
        return match row[start..end].iter().find(|&&byte| byte == b'"' || byte == b'\r') {
            Some(b'"') => Err("a quote inside a cell that does not start with one"),
            Some(_) => Err("a carriage return outside quotes, which other CSV readers take for a line end"),
            None => Ok(end),
        };
    }
    let mut at = start + 1;
    loop {
        let quote = at + memchr::memchr(b'"', &row[at..]).ok_or("a quote that is never closed")?;
        match row.get(quote + 1) {
            // A quote written twice is one quote of the cell's text.
            Some(b'"') => at = quote + 2,
            Some(b',') | None => return Ok(quote + 1),
            Some(_) => return Err("text after a cell's closing quote"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::quoting_refusal;

    #[test]
    fn rows_as_the_csv_crate_writes_them_pass() {
        for row in ["a,b,c", "", "a,,", "\"a,b\",c", "a,\"say \"\"hi\"\"\"", "\"\"", "a,\"line\r\nend\",b", "\",\""] {
            assert_eq!(quoting_refusal(row.as_bytes()), None, "{row:?}");
        }
    }

    #[test]
    fn rows_other_readers_read_otherwise_are_refused() {
        for (row, reason) in [
            ("a,b\"c,d", "a quote inside a cell"),
            ("a,\"b\"c,d", "text after a cell's closing quote"),
            ("a,\"b", "a quote that is never closed"),
            ("a,\"b\"\"", "a quote that is never closed"),
            ("a,b\rc", "a carriage return outside quotes"),
            ("a\r,b", "a carriage return outside quotes"),
        ] {
            let refusal = quoting_refusal(row.as_bytes()).unwrap_or_else(|| panic!("{row:?} passed"));
            assert!(refusal.starts_with(reason), "{row:?}: {refusal}");
        }
    }
}
