//! Spec §5: every rule broken on purpose, one at a time, answers its reason and names the field.

use crate::helpers::{json_request, registration, TestApp, PASSWORD};
use axum::http::Method;
use serde_json::{json, Value};

const PW: &str = "PASSWORD_COMPLEXITY_ERROR";
const BAD: &str = "INVALID_PARAMETER";
/// Stands for "leave the field out".
const ABSENT: &str = "<absent>";

/// Each case changes one field of an otherwise valid registration (a new password goes into
/// `confirmPassword` too, so that only the password rule can fail): the case, the field, its
/// value, the reason and field expected, and the English text where spec §5 gives one.
type Case = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
);

#[rustfmt::skip]
const CASES: &[Case] = &[
    ("a phone outside mainland China", "account", "+1 415 555 0100", "INVALID_PHONE", "account", None),
    ("a phone one digit short", "account", "1380013800", "INVALID_PHONE", "account", None),
    ("a mail without a domain", "account", "ann@", "INVALID_MAIL", "account", Some("Invalid e-mail")),
    ("a mail with two @", "account", "ann@@example.com", "INVALID_MAIL", "account", Some("Invalid e-mail")),
    ("a staff mail", "account", "li@staff.ciam.example", "EIAM_MAIL_PERMISSION_DENIED", "account", None),
    ("a password of 7 characters", "password", "Aa1!aaa", PW, "password", None),
    ("a password without upper case", "password", "aa1!aaaaaa", PW, "password", None),
    ("a password without lower case", "password", "AA1!AAAAAA", PW, "password", None),
    ("a password without a digit", "password", "Aaa!aaaaaa", PW, "password", None),
    ("a password without a special character", "password", "Aa1aaaaaaa", PW, "password", None),
    ("a password with a backtick", "password", "Aa1!aa`aaa", PW, "password", None),
    ("a password with a backslash", "password", "Aa1!aa\\aaa", PW, "password", None),
    ("a password with a single quote", "password", "Aa1!aa'aaa", PW, "password", None),
    ("a password with a double quote", "password", "Aa1!aa\"aaa", PW, "password", None),
    ("a password with a slash", "password", "Aa1!aa/aaa", PW, "password", None),
    // In data/common-passwords.txt (as p@ssw0rd) although it meets every character rule.
    ("a common password", "password", "P@ssw0rd", PW, "password", None),
    ("a confirmation that differs", "confirmPassword", "Str0ng!Passw0rE", BAD, "confirmPassword", Some("Password does not match")),
    ("an empty company", "company", "", BAD, "company", Some("Please enter the company name")),
    ("a company of spaces", "company", "   ", BAD, "company", Some("The field cannot be empty")),
    ("a company with special characters", "company", "Acme <b>Inc</b>", BAD, "company", Some("It cannot contain special characters")),
    ("a username with special characters", "userName", "ann$lee", BAD, "userName", Some("It cannot contain special characters")),
    ("a username with markup", "userName", "<script>", BAD, "userName", Some("It cannot contain special characters")),
    ("a blank username", "userName", "  ", BAD, "userName", Some("The field cannot be empty")),
    ("an empty code", "code", "", BAD, "code", Some("Verification code cannot be empty")),
    ("a code of letters", "code", "abcdef", "CODE_ERROR", "code", None),
    ("an empty country", "country", "", BAD, "country", None),
    ("a country that is no ISO code", "country", "China", BAD, "country", None),
    ("a missing country", "country", ABSENT, BAD, "country", None),
];

fn mutate(mut body: Value, field: &str, value: &str) -> Value {
    let obj = body.as_object_mut().expect("an object");
    if value == ABSENT {
        obj.remove(field);
        return body;
    }
    obj.insert(field.to_owned(), json!(value));
    if field == "password" {
        obj.insert("confirmPassword".to_owned(), json!(value));
    }
    body
}

fn en_us(body: &Value) -> axum::http::Request<axum::body::Body> {
    let mut req = json_request(Method::POST, "/auth/register", None, body);
    req.headers_mut()
        .insert("accept-language", "en-US".parse().unwrap());
    req
}

#[tokio::test]
async fn each_rule_of_spec_5_broken_alone_answers_its_reason_and_names_the_field() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    let code = app.fresh_code(mail, "register").await;
    let valid = registration("annlee", mail, &code);

    let mut failures = Vec::new();
    for (case, field, value, reason, named, en) in CASES {
        let res = app.call(en_us(&mutate(valid.clone(), field, value))).await;
        let got = res.json();
        let status = if reason.starts_with("EIAM_") {
            403
        } else {
            400
        };
        let ok = res.status.as_u16() == status
            && got["reason"] == *reason
            && got["field"] == *named
            && en.is_none_or(|en| got["message"] == en);
        if !ok {
            failures.push(format!("{case}: got {} {}", res.status, res.text));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));

    let mut refused = valid.clone();
    refused["acceptTerms"] = json!(false);
    let body = app
        .call(en_us(&refused))
        .await
        .error(400, "INVALID_PARAMETER");
    assert_eq!(body["field"], "acceptTerms");
    assert_eq!(body["message"], "You have to accept the above terms");

    // None of the refusals consumed the code: the untouched form still registers.
    app.post_register(&valid).await.ok(201);
}

#[tokio::test]
async fn a_malformed_account_is_named_account_on_every_route() {
    let app = TestApp::spawn().await;
    let reset = |account: &str| json!({ "account": account, "code": "123456", "password": PASSWORD, "confirmPassword": PASSWORD });
    let cases = [
        (
            "code by mail",
            app.post_identity(&json!({ "account": "ann@", "purpose": "login" }))
                .await,
            "INVALID_MAIL",
        ),
        (
            "code by phone",
            app.post_identity(&json!({ "account": "12345", "purpose": "login" }))
                .await,
            "INVALID_PHONE",
        ),
        (
            "sign-in by code",
            app.login_code("ann@", "123456").await,
            "INVALID_MAIL",
        ),
        (
            "reset by phone",
            app.patch_pwd(None, &reset("+1 415 555 0100")).await,
            "INVALID_PHONE",
        ),
        (
            "reset by mail",
            app.patch_pwd(None, &reset("a b@example.com")).await,
            "INVALID_MAIL",
        ),
    ];
    for (case, res, reason) in cases {
        let body = res.json();
        assert_eq!(
            (
                res.status.as_u16(),
                body["reason"].as_str(),
                body["field"].as_str()
            ),
            (400, Some(reason), Some("account")),
            "{case}: {}",
            res.text
        );
    }
}

#[tokio::test]
async fn a_company_of_spaces_in_a_profile_update_is_an_empty_field_and_changes_nothing() {
    let app = TestApp::spawn().await;
    app.sign_up("annlee", "ann@example.com").await;
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    let mut req = json_request(
        Method::PATCH,
        "/auth/info",
        Some(&token),
        &json!({ "company": "   " }),
    );
    req.headers_mut()
        .insert("accept-language", "en-US".parse().unwrap());
    let body = app.call(req).await.error(400, "INVALID_PARAMETER");
    assert_eq!(body["field"], "company");
    assert_eq!(body["message"], "The field cannot be empty");
    let info = app.get_info(&token).await.ok(200);
    assert_eq!(info["company"], "Acme Robotics");
}
