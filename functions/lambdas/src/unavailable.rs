//! The ports a `passkeys` function never uses (docs/passkeys-design.md §1.4): no ceremony sends
//! mail or SMS or stores a blob. These stand in for SES, SNS and S3, so that binary links none
//! of their clients; a call is a bug and fails like an unreachable service (logged, 500).

use async_trait::async_trait;
use ciam_core::{Blob, BlobStore, CodeMessage, NoticeMessage, Notifier, SendError};

/// A notifier and a blob store that refuse every call.
#[derive(Clone, Copy, Debug, Default)]
pub struct Unavailable;

const WHY: &str = "not available in the passkeys binary";

#[async_trait]
impl Notifier for Unavailable {
    async fn send_code(&self, _msg: &CodeMessage) -> Result<(), SendError> {
        Err(SendError::Failed(format!("notifier {WHY}")))
    }

    async fn send_notice(&self, _msg: &NoticeMessage) -> Result<(), String> {
        Err(format!("notifier {WHY}"))
    }
}

#[async_trait]
impl BlobStore for Unavailable {
    async fn put(&self, _key: &str, _bytes: Vec<u8>, _content_type: &str) -> Result<(), String> {
        Err(format!("blob store {WHY}"))
    }

    async fn get(&self, _key: &str) -> Result<Option<Blob>, String> {
        Err(format!("blob store {WHY}"))
    }

    async fn delete(&self, _key: &str) -> Result<(), String> {
        Err(format!("blob store {WHY}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_call_fails_and_says_why() {
        let u = Unavailable;
        let e = u.get("a.png").await.unwrap_err();
        assert!(e.contains("passkeys binary"), "{e}");
        assert!(u.put("a.png", vec![1], "image/png").await.is_err());
        assert!(u.delete("a.png").await.is_err());
    }
}
