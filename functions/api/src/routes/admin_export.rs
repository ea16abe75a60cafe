//! The audit log's export: `GET /admin/audit?format=csv|json` (`ciam_core::console::export`).
//! The body is streamed a day at a time (one query a day, newest first), so `ciam serve` never
//! holds the range in memory; the first day is read before the answer starts, so a failing
//! store is still an error answer. In Lambda the answer is buffered (API Gateway, 6 MB;
//! docs/operations.md).

use crate::error::ApiError;
use crate::AppState;
use axum::body::Body;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use ciam_core::console::audit::Filter;
use ciam_core::console::export::{Export, Format};
use ciam_core::{Error, Reason};

/// The export of `filter` in `format` (`csv`, `json`). Round trips: 1 a day.
pub async fn export(s: &AppState, filter: Filter, format: &str) -> Result<Response, ApiError> {
    let format = Format::parse(format).ok_or_else(|| {
        Error::field(
            Reason::INVALID_PARAMETER,
            "format",
            "格式应为 csv 或 json",
            "The format is csv or json",
        )
    })?;
    let plan = Export::new(filter, format)?;
    // The first day is read before the answer starts (its failure is an error answer); the rest
    // stream after it.
    let mut rest = plan.days().to_vec().into_iter();
    let mut first = plan.head();
    if let Some(day) = rest.next() {
        first.push_str(&plan.day(s.ciam.store.as_ref(), day).await?);
    }
    let disposition = format!("attachment; filename=\"{}\"", plan.filename());
    let store = s.ciam.store.clone();
    let tail =
        futures_util::stream::unfold((store, plan, rest), |(store, plan, mut rest)| async move {
            let day = rest.next()?;
            let chunk = plan.day(store.as_ref(), day).await.map_err(|e| {
                tracing::warn!(cause = ?e.cause, "audit export: a day could not be read");
                std::io::Error::other("the audit export stopped: a day could not be read")
            });
            Some((chunk.map(bytes::Bytes::from), (store, plan, rest)))
        });
    let head = futures_util::stream::once(async move { Ok(bytes::Bytes::from(first)) });
    let body = Body::from_stream(futures_util::StreamExt::chain(head, tail));
    Ok((
        [
            (header::CONTENT_TYPE, format.content_type().to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
            (header::CACHE_CONTROL, "no-store".to_owned()),
        ],
        body,
    )
        .into_response())
}
