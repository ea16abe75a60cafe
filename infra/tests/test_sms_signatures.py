"""The SMS adapters' signers (functions/notify/src/sign.rs) against the providers' official
Python SDKs from PyPI (infra/requirements-dev.txt): the same request with fixed inputs (keys,
date or timestamp, nonce, body) signed by both must give the same Authorization header.

- Aliyun: `alibabacloud_openapi_util.client.Client.get_authorization` (ACS3-HMAC-SHA256), the
  signer of Aliyun's Tea SDKs, over the query and headers of a dysmsapi `SendSms`.
- Tencent Cloud: `tencentcloud.common.abstract_client.AbstractClient` builds and signs a real
  `SendSms` request (TC3-HMAC-SHA256) with its clock fixed; nothing is sent.

The Rust side is `cargo run -p ciam-notify --example sign`, built by the cargo test step
(`--all-targets`), so these run with the tests that need target/debug (`serves_ciam`).
"""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.serves_ciam


def rust_sign(request: dict) -> dict:
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    binary = target / "debug" / "examples" / "sign"
    assert binary.exists(), f"{binary}: build it with cargo build -p ciam-notify --example sign"
    out = subprocess.run(
        [str(binary), json.dumps(request)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


SEND_SMS_QUERY = {
    "PhoneNumbers": "13800138000",
    "SignName": "Ciam验证",
    "TemplateCode": "SMS_154950909",
    "TemplateParam": json.dumps({"code": "493817", "minutes": "10"}, separators=(",", ":")),
}


@pytest.mark.parametrize(
    "host,query,nonce",
    [
        ("dysmsapi.aliyuncs.com", SEND_SMS_QUERY, "3156853299f313e23d1673dc12e1703d"),
        # A fake's address: the port is part of the signed host.
        ("127.0.0.1:8123", {**SEND_SMS_QUERY, "OutId": "a b*c~"}, "d410180a5abf7fe235dd9b74aca91fc0"),
    ],
)
def test_aliyun_acs3_matches_the_official_signer(host, query, nonce):
    from alibabacloud_openapi_util.client import Client
    from Tea.request import TeaRequest

    date = "2026-12-02T08:30:00Z"
    empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    req = TeaRequest()
    req.method = "POST"
    req.pathname = "/"
    req.query = dict(query)
    req.headers = {
        "host": host,
        "x-acs-action": "SendSms",
        "x-acs-version": "2017-05-25",
        "x-acs-date": date,
        "x-acs-signature-nonce": nonce,
        "x-acs-content-sha256": empty,
    }
    sdk = Client.get_authorization(req, "ACS3-HMAC-SHA256", empty, "LTAI5tTestKeyId", "TestSecret/+=")
    ours = rust_sign(
        {
            "provider": "aliyun",
            "host": host,
            "action": "SendSms",
            "version": "2017-05-25",
            "date": date,
            "nonce": nonce,
            "query": query,
            "keyId": "LTAI5tTestKeyId",
            "secret": "TestSecret/+=",
        }
    )
    assert ours["authorization"] == sdk


@pytest.mark.parametrize("timestamp", [1_551_113_065, 1_796_200_000])
def test_tencent_tc3_matches_the_official_sdk(monkeypatch, timestamp):
    from tencentcloud.common import abstract_client
    from tencentcloud.common.common_client import CommonClient
    from tencentcloud.common.credential import Credential
    from tencentcloud.common.http.request import RequestInternal

    monkeypatch.setattr(abstract_client.time, "time", lambda: timestamp)
    client = CommonClient("sms", "2021-01-11", Credential("AKIDtestSecretId", "testSecretKey"), "ap-guangzhou")
    params = {
        "PhoneNumberSet": ["+8613800138000"],
        "SmsSdkAppId": "1400006666",
        "SignName": "Ciam验证",
        "TemplateId": "1110",
        "TemplateParamSet": ["493817", "10"],
    }
    req = RequestInternal("sms.tencentcloudapi.com", "POST", "/")
    client._build_req_with_tc3_signature("SendSms", params, req)
    ours = rust_sign(
        {
            "provider": "tencent",
            "host": req.header["Host"],
            "service": "sms",
            "action": "SendSms",
            "timestamp": timestamp,
            "body": req.data,
            "contentType": req.header["Content-Type"],
            "secretId": "AKIDtestSecretId",
            "secretKey": "testSecretKey",
        }
    )
    assert ours["authorization"] == req.header["Authorization"]
