//! The `BlobStore` port: whole objects under server-generated keys (avatars). S3 in AWS, a
//! folder locally, memory in tests. Keys come from the domain, never from a client as they are:
//! every adapter still refuses a key that could leave its bucket or folder.

use async_trait::async_trait;
use std::collections::HashMap;
use std::sync::Mutex;

/// A stored object: its bytes and the content type it was stored with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blob {
    pub bytes: Vec<u8>,
    pub content_type: String,
}

/// Errors are the adapter's words for the log; the domain answers 500 without them.
#[async_trait]
pub trait BlobStore: Send + Sync {
    /// Stores `bytes` under `key`, replacing any object there.
    async fn put(&self, key: &str, bytes: Vec<u8>, content_type: &str) -> Result<(), String>;
    /// The object under `key`, or None when there is none.
    async fn get(&self, key: &str) -> Result<Option<Blob>, String>;
    /// Removes the object under `key`; removing an absent object is not an error.
    async fn delete(&self, key: &str) -> Result<(), String>;
}

/// True for keys every adapter accepts: 1 to 200 ASCII letters, digits, `-`, `_` and `.`, not
/// starting with a dot and without `..`, so a key is one plain file name in a folder and one
/// plain object name in a bucket.
pub fn is_safe_key(key: &str) -> bool {
    (1..=200).contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && !key.starts_with('.')
        && !key.contains("..")
}

/// Blobs in memory: for tests and benchmarks.
#[derive(Default)]
pub struct MemoryBlobs {
    objects: Mutex<HashMap<String, Blob>>,
}

impl MemoryBlobs {
    /// The keys stored, sorted.
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .objects
            .lock()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        keys.sort();
        keys
    }
}

#[async_trait]
impl BlobStore for MemoryBlobs {
    async fn put(&self, key: &str, bytes: Vec<u8>, content_type: &str) -> Result<(), String> {
        if !is_safe_key(key) {
            return Err(format!("unsafe blob key {key:?}"));
        }
        let blob = Blob {
            bytes,
            content_type: content_type.to_owned(),
        };
        self.objects
            .lock()
            .map_err(|_| "blob map poisoned".to_owned())?
            .insert(key.to_owned(), blob);
        Ok(())
    }

    async fn get(&self, key: &str) -> Result<Option<Blob>, String> {
        Ok(self
            .objects
            .lock()
            .map_err(|_| "blob map poisoned".to_owned())?
            .get(key)
            .cloned())
    }

    async fn delete(&self, key: &str) -> Result<(), String> {
        self.objects
            .lock()
            .map_err(|_| "blob map poisoned".to_owned())?
            .remove(key);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_keys_are_plain_names() {
        for ok in ["a", "0123-abcd.png", "x_y.z"] {
            assert!(is_safe_key(ok), "{ok}");
        }
        for bad in [
            "",
            "..",
            "../secret.key",
            "a/b",
            "a\\b",
            ".hidden",
            "a..b",
            "a b",
            "é.png",
            "%2e%2e",
            &"a".repeat(201),
        ] {
            assert!(!is_safe_key(bad), "{bad}");
        }
    }

    #[tokio::test]
    async fn memory_blobs_store_read_and_forget() {
        let m = MemoryBlobs::default();
        m.put("k.png", vec![1, 2], "image/png").await.unwrap();
        let got = m.get("k.png").await.unwrap().unwrap();
        assert_eq!(
            (got.bytes, got.content_type.as_str()),
            (vec![1, 2], "image/png")
        );
        m.delete("k.png").await.unwrap();
        m.delete("k.png").await.unwrap();
        assert_eq!(m.get("k.png").await.unwrap(), None);
        assert!(m.put("../k", vec![], "image/png").await.is_err());
    }
}
