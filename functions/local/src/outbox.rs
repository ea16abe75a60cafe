//! The dev outbox: the local `Notifier`. Codes are printed on the console and, unless turned
//! off, listed at `GET /ciam/dev/outbox` so a person (or a test) can finish sign-up without mail
//! or SMS. It exists only in `ciam serve`, never in a Lambda.

use async_trait::async_trait;
use axum::routing::get;
use axum::{Json, Router};
use ciam_core::{CodeMessage, NoticeMessage, Notifier, SendError};
use serde::Serialize;
use std::sync::{Arc, Mutex};

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OutboxEntry {
    pub to: String,
    pub purpose: &'static str,
    pub code: String,
    /// The whole text as it would be mailed or texted.
    pub text: String,
    pub sent_at: i64,
}

/// Keeps the most recent messages only, so a long-running dev server does not grow without end.
const KEEP: usize = 500;

#[derive(Clone, Default)]
pub struct DevOutbox(Arc<Mutex<Vec<OutboxEntry>>>);

impl DevOutbox {
    pub fn entries(&self) -> Vec<OutboxEntry> {
        self.0
            .lock()
            .map(|v| v.iter().rev().cloned().collect())
            .unwrap_or_default()
    }

    pub fn router(&self) -> Router {
        let me = self.clone();
        Router::new().route(
            "/ciam/dev/outbox",
            get(move || async move { Json(me.entries()) }),
        )
    }
}

#[async_trait]
impl Notifier for DevOutbox {
    async fn send_code(&self, msg: &CodeMessage) -> Result<(), SendError> {
        println!(
            "ciam dev outbox: {} code for {}: {}",
            msg.purpose.as_str(),
            msg.to.as_str(),
            msg.code
        );
        Ok(self.push(OutboxEntry {
            to: msg.to.as_str().to_owned(),
            purpose: msg.purpose.as_str(),
            code: msg.code.clone(),
            text: msg.text(),
            sent_at: now(),
        })?)
    }

    async fn send_notice(&self, msg: &NoticeMessage) -> Result<(), String> {
        println!(
            "ciam dev outbox: {} notice for {}",
            msg.notice.kind(),
            msg.to.as_str()
        );
        self.push(OutboxEntry {
            to: msg.to.as_str().to_owned(),
            purpose: msg.notice.kind(),
            code: String::new(),
            text: msg.text(),
            sent_at: now(),
        })
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

impl DevOutbox {
    fn push(&self, entry: OutboxEntry) -> Result<(), String> {
        let mut v = self.0.lock().map_err(|_| "outbox poisoned".to_owned())?;
        v.push(entry);
        if v.len() > KEEP {
            let extra = v.len() - KEEP;
            v.drain(..extra);
        }
        Ok(())
    }
}
