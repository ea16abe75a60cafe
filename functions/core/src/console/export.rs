//! The audit log's export (design §7): `GET /admin/audit?format=csv|json` and
//! `ciam admin audit export`, produced day by day (one query of a day's partition at a time,
//! newest day first, never a scan), so a month is never held in memory.
//!
//! CSV (`text/csv; charset=utf-8`): a header row, RFC 4180 quoting (a cell with a comma, a
//! quote, CR or LF is quoted, quotes doubled, lines end CRLF), and formula-injection
//! protection: a cell starting with `=`, `+`, `-`, `@`, tab or CR gets a leading `'`, so a
//! spreadsheet shows it as text. JSON Lines (`application/jsonl`): one entry a line, the
//! fields of `GET /admin/audit`'s entries.

use super::audit::{self, Entry, Filter};
use crate::error::Result;
use ciam_store::Store;

/// The CSV columns, in order.
pub const CSV_COLUMNS: [&str; 9] = [
    "time",
    "actor",
    "actorRole",
    "action",
    "target",
    "reason",
    "requestId",
    "ip",
    "detail",
];

/// An export's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    /// JSON Lines.
    Jsonl,
}

impl Format {
    /// `csv`, or `json` / `jsonl` for JSON Lines.
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "csv" => Some(Format::Csv),
            "json" | "jsonl" => Some(Format::Jsonl),
            _ => None,
        }
    }

    pub const fn content_type(self) -> &'static str {
        match self {
            Format::Csv => "text/csv; charset=utf-8",
            Format::Jsonl => "application/jsonl",
        }
    }

    pub const fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
        }
    }
}

pub use crate::days::iso;

/// One CSV cell: protected against formulas, then quoted when it must be.
pub fn csv_cell(raw: &str) -> String {
    let protect = raw.starts_with(['=', '+', '-', '@', '\t', '\r']);
    let v = if protect {
        format!("'{raw}")
    } else {
        raw.to_owned()
    };
    if v.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", v.replace('"', "\"\""))
    } else {
        v
    }
}

fn csv_line(cells: &[&str]) -> String {
    let mut line = cells
        .iter()
        .map(|c| csv_cell(c))
        .collect::<Vec<_>>()
        .join(",");
    line.push_str("\r\n");
    line
}

/// One entry in `format` (a line with its end).
pub fn render(format: Format, e: &Entry) -> String {
    match format {
        Format::Csv => csv_line(&[
            &iso(e.at),
            &e.actor,
            &e.actor_role,
            &e.action,
            &e.target,
            e.reason.as_deref().unwrap_or(""),
            &e.request_id,
            e.ip.as_deref().unwrap_or(""),
            e.detail.as_deref().unwrap_or(""),
        ]),
        Format::Jsonl => {
            let mut line = serde_json::to_string(e).unwrap_or_default();
            line.push('\n');
            line
        }
    }
}

/// An export's plan: the filter, its days (newest first) and the format.
#[derive(Clone, Debug)]
pub struct Export {
    pub format: Format,
    pub filter: Filter,
    days: Vec<i64>,
}

impl Export {
    /// Checks the range as `GET /admin/audit` does (at most 31 days).
    pub fn new(filter: Filter, format: Format) -> Result<Export> {
        let days = audit::days(&filter)?;
        Ok(Export {
            format,
            filter,
            days,
        })
    }

    /// The days to read, newest first.
    pub fn days(&self) -> &[i64] {
        &self.days
    }

    /// What comes before the first entry: the CSV header row.
    pub fn head(&self) -> String {
        match self.format {
            Format::Csv => csv_line(&CSV_COLUMNS),
            Format::Jsonl => String::new(),
        }
    }

    /// `ciam-audit-<from>-<to>.<csv|jsonl>` (the dates are checked `yyyy-mm-dd`).
    pub fn filename(&self) -> String {
        format!(
            "ciam-audit-{}-{}.{}",
            self.filter.from,
            self.filter.to,
            self.format.extension()
        )
    }

    /// One day's entries, rendered. Round trips: 1.
    pub async fn day(&self, store: &dyn Store, day: i64) -> Result<String> {
        let entries = audit::day_entries(store, day, &self.filter).await?;
        Ok(entries.iter().map(|e| render(self.format, e)).collect())
    }

    /// The whole export into `out`, a day at a time (the CLI). Round trips: 1 a day.
    pub async fn write_to(&self, store: &dyn Store, out: &mut impl std::io::Write) -> Result<()> {
        let io = |e: std::io::Error| crate::Error::internal(format!("writing the export: {e}"));
        out.write_all(self.head().as_bytes()).map_err(io)?;
        for day in &self.days {
            out.write_all(self.day(store, *day).await?.as_bytes())
                .map_err(io)?;
        }
        out.flush().map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_iso_utc_and_cells_are_quoted_and_protected() {
        assert_eq!(iso(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso(1_800_000_001), "2027-01-15T08:00:01Z");
        assert_eq!(csv_cell("plain"), "plain");
        assert_eq!(csv_cell("a,b"), "\"a,b\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_cell("two\nlines"), "\"two\nlines\"");
        assert_eq!(csv_cell("=SUM(A1)"), "'=SUM(A1)");
        assert_eq!(csv_cell("+1"), "'+1");
        assert_eq!(csv_cell("-1"), "'-1");
        assert_eq!(csv_cell("@x"), "'@x");
        assert_eq!(csv_cell("\tx"), "'\tx");
        assert_eq!(csv_cell("\rx"), "\"'\rx\"");
        assert_eq!(csv_cell("=a,b"), "\"'=a,b\"");
        assert_eq!(Format::parse("json"), Some(Format::Jsonl));
        assert_eq!(Format::parse("xml"), None);
    }
}
