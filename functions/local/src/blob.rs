//! The local `BlobStore`: one file per object in a folder (`<data>/avatars/`). Keys are checked
//! to be plain file names (`ciam_core::blob::is_safe_key`), so no key reaches outside the folder.
//! The content type is not stored: it follows from the key's extension.

use async_trait::async_trait;
use ciam_core::blob::is_safe_key;
use ciam_core::{Blob, BlobStore};
use std::io::ErrorKind;
use std::path::PathBuf;

pub struct FolderBlobs {
    root: PathBuf,
}

impl FolderBlobs {
    /// Objects live in `root`, created on the first write.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        FolderBlobs { root: root.into() }
    }

    fn path(&self, key: &str) -> Result<PathBuf, String> {
        if is_safe_key(key) {
            Ok(self.root.join(key))
        } else {
            Err(format!("unsafe blob key {key:?}"))
        }
    }
}

fn content_type(key: &str) -> &'static str {
    match key.rsplit_once('.').map(|(_, ext)| ext) {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("webp") => "image/webp",
        _ => "application/octet-stream",
    }
}

#[async_trait]
impl BlobStore for FolderBlobs {
    async fn put(&self, key: &str, bytes: Vec<u8>, _content_type: &str) -> Result<(), String> {
        let path = self.path(key)?;
        tokio::fs::create_dir_all(&self.root)
            .await
            .map_err(|e| format!("cannot create {}: {e}", self.root.display()))?;
        // Written beside and renamed into place, so a reader never sees half a file. The
        // temporary name starts with a dot: no valid key can name it.
        let tmp = self.root.join(format!(".{key}.{}.tmp", std::process::id()));
        tokio::fs::write(&tmp, &bytes)
            .await
            .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
        tokio::fs::rename(&tmp, &path)
            .await
            .map_err(|e| format!("cannot rename to {}: {e}", path.display()))
    }

    async fn get(&self, key: &str) -> Result<Option<Blob>, String> {
        let path = self.path(key)?;
        match tokio::fs::read(&path).await {
            Ok(bytes) => Ok(Some(Blob {
                bytes,
                content_type: content_type(key).to_owned(),
            })),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
    }

    async fn delete(&self, key: &str) -> Result<(), String> {
        let path = self.path(key)?;
        match tokio::fs::remove_file(&path).await {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(format!("cannot delete {}: {e}", path.display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch() -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "ciam-blobs-{}-{}",
            std::process::id(),
            hex::encode(rand::random::<[u8; 8]>())
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[tokio::test]
    async fn objects_are_files_in_the_folder() {
        let dir = scratch();
        let blobs = FolderBlobs::new(dir.join("avatars"));
        assert_eq!(blobs.get("a.png").await.unwrap(), None);
        blobs
            .put("a.png", vec![1, 2, 3], "image/png")
            .await
            .unwrap();
        assert_eq!(
            std::fs::read(dir.join("avatars/a.png")).unwrap(),
            vec![1, 2, 3]
        );
        let got = blobs.get("a.png").await.unwrap().unwrap();
        assert_eq!(
            (got.bytes, got.content_type.as_str()),
            (vec![1, 2, 3], "image/png")
        );
        blobs.put("a.png", vec![4], "image/png").await.unwrap();
        assert_eq!(blobs.get("a.png").await.unwrap().unwrap().bytes, vec![4]);
        blobs.delete("a.png").await.unwrap();
        blobs.delete("a.png").await.unwrap();
        assert_eq!(blobs.get("a.png").await.unwrap(), None);
        let left: Vec<_> = std::fs::read_dir(dir.join("avatars")).unwrap().collect();
        assert!(left.is_empty(), "no temporary file is left behind");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[tokio::test]
    async fn keys_that_could_leave_the_folder_are_refused() {
        let dir = scratch();
        std::fs::write(dir.join("secret.key"), "s3cret").unwrap();
        let blobs = FolderBlobs::new(dir.join("avatars"));
        for key in [
            "../secret.key",
            "/etc/passwd",
            "a/../../secret.key",
            "..",
            ".hidden",
            "",
        ] {
            assert!(blobs.get(key).await.is_err(), "{key}");
            assert!(blobs.put(key, vec![1], "image/png").await.is_err(), "{key}");
            assert!(blobs.delete(key).await.is_err(), "{key}");
        }
        assert_eq!(
            std::fs::read_to_string(dir.join("secret.key")).unwrap(),
            "s3cret"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
