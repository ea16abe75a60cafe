//! `ciam serve --cell global|cn --other-cell URL`: which cell this server plays and where its
//! sibling is (docs/multi-region.md §14). The API reads them from `Config` (`cell`,
//! `other_cell`); the web app reads them from two tags in index.html's head, which in AWS the
//! upload writes into the bucket's index.html (infra/upload_web.py) and here this server writes
//! into the index.html it serves, the SPA's and the embedded sign-in's alike. Without
//! `--other-cell` the page is served as built: one cell, nothing shown.

use async_trait::async_trait;
use ciam_core::cell::{self, Cell};
use ciam_core::{Blob, BlobStore};
use std::sync::Arc;

/// The flags (and their environment variables, the Lambdas' names).
#[derive(Clone, Debug, Default, clap::Args)]
pub struct CellOptions {
    /// Which cell this is: global (the international service) or cn (the mainland China
    /// service). Shown only with --other-cell.
    #[arg(long = "cell", env = "CIAM_CELL", value_parser = parse_cell, default_value = "global")]
    pub cell: CellArg,
    /// The other cell's origin (e.g. https://id.example.cn): the pages name this service and link
    /// the other, and in the global cell a phone sign-up is sent there.
    #[arg(long = "other-cell", env = "CIAM_OTHER_CELL", value_parser = parse_other)]
    pub other_cell: Option<String>,
}

/// [`Cell`] as clap holds it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CellArg(pub Cell);

fn parse_cell(s: &str) -> Result<CellArg, String> {
    Cell::parse(s)
        .map(CellArg)
        .ok_or_else(|| "global or cn".to_owned())
}

fn parse_other(s: &str) -> Result<String, String> {
    cell::other_origin(s)
}

/// `html` with the two tags the web app reads (`ciam-cell`, `ciam-other-cell`) at the end of
/// its head; unchanged when there is no other cell.
pub fn tagged_index(html: &str, here: Cell, other: Option<&str>) -> String {
    let Some(other) = other else {
        return html.to_owned();
    };
    let tags = format!(
        "<meta name=\"ciam-cell\" content=\"{}\" /><meta name=\"ciam-other-cell\" content=\"{}\" />",
        here.as_str(),
        escape(other)
    );
    match html.find("</head>") {
        Some(i) => format!("{}{tags}{}", &html[..i], &html[i..]),
        None => format!("{tags}{html}"),
    }
}

/// An origin has passed `cell::other_origin`; escaped anyway, as any attribute value.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The web folder with index.html answered tagged (the embedded sign-in reads it through this
/// port, as its Lambda reads the bucket's).
pub(crate) struct TaggedIndex {
    pub(crate) inner: Arc<dyn BlobStore>,
    pub(crate) index: Arc<str>,
}

#[async_trait]
impl BlobStore for TaggedIndex {
    async fn put(&self, key: &str, bytes: Vec<u8>, content_type: &str) -> Result<(), String> {
        self.inner.put(key, bytes, content_type).await
    }

    async fn get(&self, key: &str) -> Result<Option<Blob>, String> {
        if key == ciam_api::embedded::INDEX_KEY {
            return Ok(Some(Blob {
                bytes: self.index.as_bytes().to_vec(),
                content_type: "text/html; charset=utf-8".into(),
            }));
        }
        self.inner.get(key).await
    }

    async fn delete(&self, key: &str) -> Result<(), String> {
        self.inner.delete(key).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUILT: &str = "<!doctype html><html><head><title>Ciam</title></head><body></body></html>";

    #[test]
    fn the_tags_go_at_the_end_of_the_head() {
        let html = tagged_index(BUILT, Cell::Global, Some("https://id.example.cn"));
        assert_eq!(
            html,
            "<!doctype html><html><head><title>Ciam</title><meta name=\"ciam-cell\" content=\"global\" />\
             <meta name=\"ciam-other-cell\" content=\"https://id.example.cn\" /></head><body></body></html>"
        );
        assert!(
            tagged_index(BUILT, Cell::Cn, Some("https://id.example.com"))
                .contains("<meta name=\"ciam-cell\" content=\"cn\" />")
        );
    }

    #[test]
    fn one_cell_alone_serves_the_page_as_built() {
        assert_eq!(tagged_index(BUILT, Cell::Cn, None), BUILT);
    }

    #[test]
    fn the_flags_take_a_cell_name_and_an_origin_only() {
        assert_eq!(parse_cell("cn"), Ok(CellArg(Cell::Cn)));
        assert!(parse_cell("mainland").is_err());
        assert_eq!(
            parse_other("https://id.example.cn/").as_deref(),
            Ok("https://id.example.cn")
        );
        assert!(parse_other("https://id.example.cn/zh-CN/passport/signin").is_err());
        assert_eq!(escape("a\"<&>"), "a&quot;&lt;&amp;&gt;");
    }
}
