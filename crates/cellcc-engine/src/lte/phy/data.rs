//! Reading the PHY's data files (`data/*.txt`, compiled in with `include_str!`).
//!
//! Each file opens with `#` provenance lines; the rest are rows of numbers separated by
//! blanks, optionally led by a `label:`. The files are part of the binary, so a malformed
//! one is a build defect: the parsers panic with the file and line, and every table's
//! unit tests load it.

/// The data rows of `src`: comment (`#`) and blank lines skipped, a leading `label:` removed.
pub(super) fn rows(src: &'static str) -> impl Iterator<Item = (usize, &'static str)> {
    src.lines().enumerate().filter_map(|(i, line)| {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return None;
        }
        let body = match line.split_once(':') {
            Some((_, rest)) => rest,
            None => line,
        };
        Some((i + 1, body))
    })
}

/// The numeric fields of one row, parsed as `f64`; `file` and `line` name it in the panic.
pub(super) fn numbers(file: &'static str, line: usize, row: &'static str) -> impl Iterator<Item = f64> {
    row.split_whitespace().map(move |field| number(file, line, field))
}

/// One numeric field; `file` and `line` name it in the panic.
pub(super) fn number(file: &'static str, line: usize, field: &str) -> f64 {
    field.parse::<f64>().unwrap_or_else(|_| panic!("{file}:{line}: `{field}` is not a number"))
}

/// The fields of one row as text (for rows that mix labels and numbers).
pub(super) fn fields(row: &'static str) -> impl Iterator<Item = &'static str> {
    row.split_whitespace()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_skip_comments_and_labels() {
        let src = "# header\n\n1: 2 3\n4 5\n";
        let got: Vec<_> = rows(src).collect();
        assert_eq!(got, vec![(3, " 2 3"), (4, "4 5")]);
        let nums: Vec<f64> = numbers("t", 3, got[0].1).collect();
        assert_eq!(nums, vec![2.0, 3.0]);
    }

    #[test]
    #[should_panic(expected = "t:7: `x` is not a number")]
    fn a_bad_number_names_file_and_line() {
        let _ = numbers("t", 7, "1 x").count();
    }
}
