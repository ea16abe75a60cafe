//! `ciam serve --cell --other-cell` (functions/local/src/cell.rs, docs/multi-region.md §14): the
//! index.html it serves, for the SPA's routes, /index.html itself and the embedded sign-in, carries
//! the `ciam-cell` and `ciam-other-cell` tags in its head (never the precompressed copy, which lacks
//! them); one cell alone serves the page as built.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use axum::body::Body;
use ciam_core::cell::Cell;
use ciam_core::testing::Builder;
use ciam_core::Config;
use http::Request;
use std::path::{Path, PathBuf};
use tower::ServiceExt;

const HTML: &str = "<!doctype html><html><head><title>Ciam</title></head><body></body></html>";
const TAGS: &str = "<meta name=\"ciam-cell\" content=\"global\" /><meta name=\"ciam-other-cell\" content=\"https://id.example.cn\" /></head>";

fn dist(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ciam-cells-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("assets")).unwrap();
    std::fs::write(d.join("index.html"), HTML).unwrap();
    std::fs::write(d.join("index.html.br"), b"br:index").unwrap();
    d
}

async fn get(d: &Path, other: Option<&str>, uri: &str) -> (u16, String) {
    ciam_core::testing::ask_each_thread();
    let ciam = Builder::new(0)
        .system_clock()
        .config(Config {
            cell: Cell::Global,
            other_cell: other.map(str::to_owned),
            ..Config::default()
        })
        .build()
        .await;
    let app = ciam_local::app(ciam, None, d);
    let req = Request::get(uri)
        .header("accept-encoding", "br")
        .body(Body::empty())
        .unwrap();
    let res = app.oneshot(req).await.unwrap();
    let status = res.status().as_u16();
    let body = axum::body::to_bytes(res.into_body(), 1 << 20)
        .await
        .unwrap();
    (status, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test]
async fn with_another_cell_every_index_html_names_both_cells() {
    let d = dist("two");
    for uri in [
        "/",
        "/zh-CN/passport/signin",
        "/en-US/passport/register?appId=x",
        "/index.html",
        "/zh-CN/embedded/signin",
    ] {
        let (status, body) = get(&d, Some("https://id.example.cn"), uri).await;
        assert_eq!(status, 200, "{uri}");
        assert!(body.contains(TAGS), "{uri}: {body}");
    }
    // Files stay files.
    assert_eq!(
        get(&d, Some("https://id.example.cn"), "/assets/none.js")
            .await
            .0,
        404
    );
}

#[tokio::test]
async fn one_cell_alone_serves_the_page_as_built() {
    let d = dist("one");
    let (status, body) = get(&d, None, "/zh-CN/passport/signin").await;
    assert_eq!((status, body.as_str()), (200, "br:index"));
    let (_, body) = get(&d, None, "/zh-CN/embedded/signin").await;
    assert!(!body.contains("ciam-cell"), "{body}");
}
