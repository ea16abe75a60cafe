//! The TXT lookup against a real DNS server run by the test (ciam_fakes::dns: hickory-server on
//! 127.0.0.1, a random port), through `txt::check` as the verify route uses it.

use crate::domains::dns::Hickory;
use crate::domains::txt::{check, record_name, LookupError, TxtLookup};
use crate::domains::DomainName;
use crate::error::Message;
use crate::Reason;
use ciam_fakes::dns::{silent, DnsServer};
use std::time::{Duration, Instant};

fn acme() -> DomainName {
    DomainName::parse("acme.example").unwrap()
}

async fn server_and_lookup() -> (DnsServer, Hickory) {
    let dns = DnsServer::start().await.unwrap();
    let lookup = Hickory::at(dns.addr(), Duration::from_millis(500), 1).unwrap();
    (dns, lookup)
}

#[tokio::test]
async fn a_published_record_with_the_token_verifies_the_domain() {
    let (dns, lookup) = server_and_lookup().await;
    dns.set_txt("_ciam-verify.acme.example", &["ciam-verify=tok123"]);
    assert_eq!(
        lookup.txt("_ciam-verify.acme.example").await.unwrap(),
        vec!["ciam-verify=tok123".to_owned()]
    );
    check(&lookup, &acme(), "tok123").await.unwrap();
}

#[tokio::test]
async fn among_several_txt_records_the_one_with_the_token_counts() {
    let (dns, lookup) = server_and_lookup().await;
    dns.set_txt(
        "_ciam-verify.acme.example",
        &["v=spf1 -all", "ciam-verify=other-org", "ciam-verify=tok123"],
    );
    check(&lookup, &acme(), "tok123").await.unwrap();
    // A record split into character strings is joined before it is compared.
    dns.set_txt_strings("_ciam-verify.acme.example", &["ciam-verify=", "tok123"]);
    check(&lookup, &acme(), "tok123").await.unwrap();
}

#[tokio::test]
async fn a_wrong_value_is_not_found_and_names_the_record_expected() {
    let (dns, lookup) = server_and_lookup().await;
    dns.set_txt("_ciam-verify.acme.example", &["ciam-verify=old-token"]);
    let e = check(&lookup, &acme(), "tok123").await.unwrap_err();
    assert_eq!(e.reason, Reason::DOMAIN_TXT_NOT_FOUND);
    assert_eq!(
        e.message,
        Some(Message::Raw(
            "_ciam-verify.acme.example TXT \"ciam-verify=tok123\"".into()
        ))
    );
}

#[tokio::test]
async fn a_name_without_txt_records_and_a_missing_name_are_not_found() {
    let (dns, lookup) = server_and_lookup().await;
    dns.set_txt("_ciam-verify.acme.example", &[]);
    assert_eq!(
        lookup.txt("_ciam-verify.acme.example").await,
        Err(LookupError::NotFound)
    );
    let e = check(&lookup, &acme(), "tok123").await.unwrap_err();
    assert_eq!(e.reason, Reason::DOMAIN_TXT_NOT_FOUND);
    // NXDOMAIN: the server has never heard of the name.
    dns.remove("_ciam-verify.acme.example");
    assert_eq!(
        lookup.txt(&record_name(&acme())).await,
        Err(LookupError::NotFound)
    );
    let e = check(&lookup, &acme(), "tok123").await.unwrap_err();
    assert_eq!(e.reason, Reason::DOMAIN_TXT_NOT_FOUND);
}

#[tokio::test]
async fn a_record_published_after_a_failed_check_is_seen_at_once() {
    let (dns, lookup) = server_and_lookup().await;
    assert!(check(&lookup, &acme(), "tok123").await.is_err());
    dns.set_txt("_ciam-verify.acme.example", &["ciam-verify=tok123"]);
    // No negative cache: the admin who just fixed the record is not told it is missing.
    check(&lookup, &acme(), "tok123").await.unwrap();
}

#[tokio::test]
async fn a_server_failure_is_unavailable_not_a_verdict() {
    let (dns, lookup) = server_and_lookup().await;
    dns.fail("_ciam-verify.acme.example");
    let e = check(&lookup, &acme(), "tok123").await.unwrap_err();
    assert_eq!(e.reason, Reason::DOMAIN_DNS_UNAVAILABLE);
}

#[tokio::test]
async fn a_server_that_never_answers_is_unavailable_within_the_budget() {
    let (addr, _socket) = silent().await.unwrap();
    let lookup = Hickory::at(addr, Duration::from_millis(300), 2)
        .unwrap()
        .with_budget(Duration::from_millis(800));
    let started = Instant::now();
    let e = check(&lookup, &acme(), "tok123").await.unwrap_err();
    assert_eq!(e.reason, Reason::DOMAIN_DNS_UNAVAILABLE);
    assert_eq!(e.reason.status(), 503);
    assert!(e.cause.unwrap().contains("_ciam-verify.acme.example"));
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn the_request_deadline_bounds_the_lookup_too() {
    let (addr, _socket) = silent().await.unwrap();
    let lookup = Hickory::at(addr, Duration::from_secs(5), 2).unwrap();
    let started = Instant::now();
    let r = crate::deadline::within(Duration::from_millis(300), lookup.txt("x.acme.example")).await;
    assert!(matches!(r, Err(LookupError::Unavailable(_))), "{r:?}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}
