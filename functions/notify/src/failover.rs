//! A primary and a fallback provider.
//!
//! A failure of the primary (its account throttled, a 5xx, a timeout, no connection, even a
//! misconfiguration) moves the message to the fallback: the person still gets a code. A
//! refusal of the number or the number's own limit does not: the limit is per number at each
//! provider, and trying the second would double what one can make Ciam send to a stranger's
//! phone (SMS bombing), and a number one provider will not text is no better at the other.

use async_trait::async_trait;
use ciam_core::{CodeMessage, NoticeMessage, Notifier, SendError};
use std::sync::Arc;

pub struct Failover {
    pub primary: Arc<dyn Notifier>,
    pub fallback: Arc<dyn Notifier>,
}

#[async_trait]
impl Notifier for Failover {
    async fn send_code(&self, msg: &CodeMessage) -> Result<(), SendError> {
        match self.primary.send_code(msg).await {
            Err(SendError::Failed(first)) => {
                tracing::warn!(cause = %first, "primary SMS provider failed; trying the fallback");
                self.fallback.send_code(msg).await.map_err(|e| match e {
                    SendError::Failed(second) => {
                        SendError::Failed(format!("{first}; fallback: {second}"))
                    }
                    refused => refused,
                })
            }
            done => done,
        }
    }

    async fn send_notice(&self, msg: &NoticeMessage) -> Result<(), String> {
        match self.primary.send_notice(msg).await {
            Ok(()) => Ok(()),
            Err(first) => {
                tracing::warn!(cause = %first, "primary SMS provider failed a notice; trying the fallback");
                self.fallback
                    .send_notice(msg)
                    .await
                    .map_err(|second| format!("{first}; fallback: {second}"))
            }
        }
    }
}
