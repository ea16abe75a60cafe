//! The AWS `BlobStore`: objects in the private avatar bucket (`CIAM_AVATAR_BUCKET`, set by
//! template.yaml for the avatar functions only). Functions without the variable get a store
//! that refuses every call, which no route of theirs makes.

use async_trait::async_trait;
use aws_sdk_s3::primitives::ByteStream;
use ciam_core::blob::is_safe_key;
use ciam_core::{Blob, BlobStore};

pub struct S3Blobs {
    client: aws_sdk_s3::Client,
    bucket: Option<String>,
}

impl S3Blobs {
    pub fn new(client: aws_sdk_s3::Client, bucket: Option<String>) -> Self {
        S3Blobs {
            client,
            bucket: bucket
                .map(|b| b.trim().to_owned())
                .filter(|b| !b.is_empty()),
        }
    }

    /// The bucket named by `CIAM_AVATAR_BUCKET`, if any.
    pub fn from_env(client: aws_sdk_s3::Client) -> Self {
        S3Blobs::new(client, std::env::var("CIAM_AVATAR_BUCKET").ok())
    }

    fn target<'k>(&self, key: &'k str) -> Result<(&str, &'k str), String> {
        let bucket = self
            .bucket
            .as_deref()
            .ok_or("CIAM_AVATAR_BUCKET is not set for this function")?;
        if !is_safe_key(key) {
            return Err(format!("unsafe blob key {key:?}"));
        }
        Ok((bucket, key))
    }
}

/// The SDK's error with its cause chain (its Display alone says only "service error").
fn describe(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

#[async_trait]
impl BlobStore for S3Blobs {
    async fn put(&self, key: &str, bytes: Vec<u8>, content_type: &str) -> Result<(), String> {
        let (bucket, key) = self.target(key)?;
        self.client
            .put_object()
            .bucket(bucket)
            .key(key)
            .content_type(content_type)
            .body(ByteStream::from(bytes))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| format!("s3 put {key}: {}", describe(&e)))
    }

    async fn get(&self, key: &str) -> Result<Option<Blob>, String> {
        let (bucket, key) = self.target(key)?;
        let out = match self
            .client
            .get_object()
            .bucket(bucket)
            .key(key)
            .send()
            .await
        {
            Ok(out) => out,
            Err(e) if e.as_service_error().is_some_and(|s| s.is_no_such_key()) => return Ok(None),
            // Without s3:ListBucket (the template grants objects only) S3 answers a missing key
            // with 403 AccessDenied, not 404, so as not to tell what exists: absent, here too.
            Err(e) if e.raw_response().is_some_and(|r| r.status().as_u16() == 403) => {
                tracing::debug!(key, "s3 get: 403 taken as absent (no ListBucket)");
                return Ok(None);
            }
            Err(e) => return Err(format!("s3 get {key}: {}", describe(&e))),
        };
        let content_type = out
            .content_type()
            .unwrap_or("application/octet-stream")
            .to_owned();
        let bytes = out
            .body
            .collect()
            .await
            .map_err(|e| format!("s3 get {key}: reading the body: {}", describe(&e)))?
            .to_vec();
        Ok(Some(Blob {
            bytes,
            content_type,
        }))
    }

    async fn delete(&self, key: &str) -> Result<(), String> {
        let (bucket, key) = self.target(key)?;
        // S3 answers success for an absent key too.
        self.client
            .delete_object()
            .bucket(bucket)
            .key(key)
            .send()
            .await
            .map(|_| ())
            .map_err(|e| format!("s3 delete {key}: {}", describe(&e)))
    }
}

#[cfg(test)]
mod tests {
    //! The adapter against a loopback stand-in for S3's REST API (path-style PUT, GET and
    //! DELETE of objects), so the SDK's real requests and error parsing are exercised.

    use super::*;
    use axum::body::Bytes;
    use axum::extract::{Path, State};
    use axum::http::{HeaderMap, StatusCode};
    use axum::response::{IntoResponse, Response};
    use axum::routing::put;
    use axum::Router;
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};

    type Objects = Arc<Mutex<HashMap<(String, String), (Vec<u8>, String)>>>;

    /// The stand-in's objects, and whether a missing key answers as S3 does for a role without
    /// s3:ListBucket (403 AccessDenied) instead of 404 NoSuchKey.
    #[derive(Clone, Default)]
    struct Bucket {
        objects: Objects,
        deny_missing: bool,
    }

    async fn put_object(
        State(Bucket { objects, .. }): State<Bucket>,
        Path((bucket, key)): Path<(String, String)>,
        headers: HeaderMap,
        body: Bytes,
    ) -> StatusCode {
        let ct = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        objects
            .lock()
            .unwrap()
            .insert((bucket, key), (body.to_vec(), ct));
        StatusCode::OK
    }

    async fn get_object(
        State(Bucket {
            objects,
            deny_missing,
        }): State<Bucket>,
        Path((bucket, key)): Path<(String, String)>,
    ) -> Response {
        match objects.lock().unwrap().get(&(bucket, key)).cloned() {
            Some((bytes, ct)) => ([("content-type", ct)], bytes).into_response(),
            None if deny_missing => (
                StatusCode::FORBIDDEN,
                [("content-type", "application/xml")],
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
                 <Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>",
            )
                .into_response(),
            None => (
                StatusCode::NOT_FOUND,
                [("content-type", "application/xml")],
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
                 <Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>",
            )
                .into_response(),
        }
    }

    async fn delete_object(
        State(Bucket { objects, .. }): State<Bucket>,
        Path((bucket, key)): Path<(String, String)>,
    ) -> StatusCode {
        objects.lock().unwrap().remove(&(bucket, key));
        StatusCode::NO_CONTENT
    }

    async fn fake_s3() -> (String, Objects) {
        serve_bucket(Bucket::default()).await
    }

    async fn serve_bucket(bucket: Bucket) -> (String, Objects) {
        let objects = bucket.objects.clone();
        let app = Router::new()
            .route(
                "/{bucket}/{key}",
                put(put_object).get(get_object).delete(delete_object),
            )
            .with_state(bucket);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        (format!("http://{addr}"), objects)
    }

    fn client(endpoint: &str) -> aws_sdk_s3::Client {
        use aws_sdk_s3::config::{
            BehaviorVersion, Credentials, Region, RequestChecksumCalculation,
        };
        let conf = aws_sdk_s3::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .endpoint_url(endpoint)
            .force_path_style(true)
            .credentials_provider(Credentials::new("test", "test", None, None, "test"))
            // The stand-in does not speak aws-chunked trailing checksums.
            .request_checksum_calculation(RequestChecksumCalculation::WhenRequired)
            .build();
        aws_sdk_s3::Client::from_conf(conf)
    }

    #[tokio::test]
    async fn objects_go_to_the_bucket_and_come_back_with_their_type() {
        let (endpoint, objects) = fake_s3().await;
        let blobs = S3Blobs::new(client(&endpoint), Some("avatars".into()));
        assert_eq!(blobs.get("a.png").await.unwrap(), None, "absent is None");
        blobs
            .put("a.png", vec![1, 2, 3], "image/png")
            .await
            .unwrap();
        assert_eq!(
            objects
                .lock()
                .unwrap()
                .get(&("avatars".into(), "a.png".into())),
            Some(&(vec![1, 2, 3], "image/png".to_owned()))
        );
        let got = blobs.get("a.png").await.unwrap().unwrap();
        assert_eq!(
            (got.bytes, got.content_type.as_str()),
            (vec![1, 2, 3], "image/png")
        );
        blobs.delete("a.png").await.unwrap();
        assert_eq!(blobs.get("a.png").await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_missing_object_is_absent_also_when_s3_answers_access_denied() {
        let (endpoint, _) = serve_bucket(Bucket {
            deny_missing: true,
            ..Bucket::default()
        })
        .await;
        let blobs = S3Blobs::new(client(&endpoint), Some("avatars".into()));
        assert_eq!(blobs.get("gone.png").await.unwrap(), None);
        blobs.put("here.png", vec![7], "image/png").await.unwrap();
        assert_eq!(blobs.get("here.png").await.unwrap().unwrap().bytes, vec![7]);
    }

    #[tokio::test]
    async fn without_a_bucket_or_with_an_unsafe_key_nothing_is_sent() {
        let (endpoint, objects) = fake_s3().await;
        let none = S3Blobs::new(client(&endpoint), Some("  ".into()));
        let err = none.put("a.png", vec![1], "image/png").await.unwrap_err();
        assert!(err.contains("CIAM_AVATAR_BUCKET"), "{err}");
        let blobs = S3Blobs::new(client(&endpoint), Some("avatars".into()));
        assert!(blobs.put("../x.png", vec![1], "image/png").await.is_err());
        assert!(blobs.get("a/b.png").await.is_err());
        assert!(objects.lock().unwrap().is_empty());
    }
}
