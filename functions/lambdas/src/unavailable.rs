//! The ports a function never uses. A `passkeys` function (docs/passkeys-design.md §1.4): no
//! ceremony sends mail or SMS or stores a blob. These stand in for SES, SNS and S3, so that
//! binary links none of their clients; a call is a bug and fails like an unreachable service
//! (logged, 500). And every function's image decoder but the upload's (which invokes the
//! decoding function): no function that holds keys decodes an image, and only the `decoder`
//! binary links the image crates (docs/operations.md §10).

use async_trait::async_trait;
use ciam_core::avatar::ImageDecoder;
use ciam_core::{Blob, BlobStore, CodeMessage, Error, NoticeMessage, Notifier, SendError};

/// A notifier, a blob store and an image decoder that refuse every call.
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

#[async_trait]
impl ImageDecoder for Unavailable {
    async fn thumbnail(&self, _bytes: Vec<u8>) -> ciam_core::Result<Vec<u8>> {
        Err(Error::internal(
            "image decoding is not available in this function: uploads go to the decoding \
             function (binary decoder)",
        ))
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
        let e = u.thumbnail(vec![0x89, b'P', b'N', b'G']).await.unwrap_err();
        assert_eq!(e.reason, ciam_core::Reason::INTERNAL_SERVER_ERROR);
        assert!(e.cause.unwrap_or_default().contains("decoding function"));
    }
}
