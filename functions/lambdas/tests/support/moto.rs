//! moto's server (`.venv/bin/moto_server`) for Secrets Manager and KMS: started on a free
//! loopback port, killed on drop.

use aws_sdk_kms::types::{KeySpec, KeyUsageType};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

pub const REGION: &str = "us-east-1";
/// One access key for moto and DynamoDB Local (letters and digits, as DynamoDB Local demands).
pub const ACCESS_KEY: &str = "ciamEmulatorTest";

/// moto's server on a free loopback port, killed on drop.
pub struct Moto {
    _child: tokio::process::Child,
    pub endpoint: String,
}

impl Moto {
    /// None (after saying why) when moto_server is not installed and this is not CI.
    pub async fn start() -> Option<Moto> {
        let exe = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/moto_server");
        if !exe.exists() {
            let why = format!(
                "{} is missing: run `bash scripts/setup.sh` (moto[server] from \
                 infra/requirements-dev.txt)",
                exe.display()
            );
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("{why}");
            }
            eprintln!("SKIPPED: {why}");
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap();
        let child = tokio::process::Command::new(&exe)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("{} does not start: {e}", exe.display()));
        let started = std::time::Instant::now();
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "moto_server did not listen on {port} within 30 s"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Some(Moto {
            _child: child,
            endpoint: format!("http://127.0.0.1:{port}"),
        })
    }

    pub async fn sdk(&self) -> aws_config::SdkConfig {
        aws_config::defaults(aws_config::BehaviorVersion::latest())
            .region(aws_config::Region::new(REGION))
            .endpoint_url(&self.endpoint)
            .credentials_provider(aws_sdk_kms::config::Credentials::new(
                ACCESS_KEY, "test", None, None, "test",
            ))
            .load()
            .await
    }

    /// A new ECC_NIST_P256 signing key: its id.
    pub async fn kms_key(&self) -> String {
        let kms = aws_sdk_kms::Client::new(&self.sdk().await);
        let out = kms
            .create_key()
            .key_spec(KeySpec::EccNistP256)
            .key_usage(KeyUsageType::SignVerify)
            .send()
            .await
            .expect("moto creates an ECC_NIST_P256 key");
        out.key_metadata().unwrap().key_id().to_owned()
    }

    /// The key's public point, as GetPublicKey gives it.
    pub async fn public_key(&self, key_id: &str) -> p256::ecdsa::VerifyingKey {
        let kms = aws_sdk_kms::Client::new(&self.sdk().await);
        let out = kms.get_public_key().key_id(key_id).send().await.unwrap();
        ciam_lambdas::kms::spki_to_key(out.public_key().unwrap().as_ref()).unwrap()
    }

    /// A new secret holding `value` (JSON): its ARN.
    pub async fn secret(&self, name: &str, value: &Value) -> String {
        let sm = aws_sdk_secretsmanager::Client::new(&self.sdk().await);
        let out = sm
            .create_secret()
            .name(name)
            .secret_string(value.to_string())
            .send()
            .await
            .unwrap();
        out.arn().unwrap().to_owned()
    }

    pub async fn put_secret(&self, arn: &str, value: &Value) {
        let sm = aws_sdk_secretsmanager::Client::new(&self.sdk().await);
        sm.put_secret_value()
            .secret_id(arn)
            .secret_string(value.to_string())
            .send()
            .await
            .unwrap();
    }
}
