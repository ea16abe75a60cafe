//! Creating the table and its TTL, idempotently.

use super::convert::{build_error, sdk_error};
use super::DynamoStore;
use crate::{StoreError, EXPIRES_AT, PK, SK};
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType, TableStatus,
    TimeToLiveSpecification, TimeToLiveStatus,
};

/// How many times the table status is polled (about every half second) before giving up.
const ACTIVE_POLLS: u32 = 600;

pub(super) async fn ensure(store: &DynamoStore) -> Result<(), StoreError> {
    if status(store).await?.is_none() {
        create(store).await?;
    }
    wait_active(store).await?;
    enable_ttl(store).await
}

/// The table's status, `None` when it does not exist.
async fn status(store: &DynamoStore) -> Result<Option<TableStatus>, StoreError> {
    match store
        .client
        .describe_table()
        .table_name(&store.table)
        .send()
        .await
    {
        Ok(out) => Ok(Some(
            out.table()
                .and_then(|t| t.table_status())
                .cloned()
                .unwrap_or(TableStatus::Creating),
        )),
        Err(e)
            if e.as_service_error()
                .is_some_and(|s| s.is_resource_not_found_exception()) =>
        {
            Ok(None)
        }
        Err(e) => Err(sdk_error("DescribeTable", &e)),
    }
}

async fn create(store: &DynamoStore) -> Result<(), StoreError> {
    let attr = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .map_err(build_error)
    };
    let key = |name: &str, kind: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(kind)
            .build()
            .map_err(build_error)
    };
    let res = store
        .client
        .create_table()
        .table_name(&store.table)
        .attribute_definitions(attr(PK)?)
        .attribute_definitions(attr(SK)?)
        .key_schema(key(PK, KeyType::Hash)?)
        .key_schema(key(SK, KeyType::Range)?)
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await;
    match res {
        Ok(_) => Ok(()),
        // Created concurrently by someone else: fine.
        Err(e)
            if e.as_service_error()
                .is_some_and(|s| s.is_resource_in_use_exception()) =>
        {
            Ok(())
        }
        Err(e) => Err(sdk_error("CreateTable", &e)),
    }
}

async fn wait_active(store: &DynamoStore) -> Result<(), StoreError> {
    for attempt in 0..ACTIVE_POLLS {
        if status(store).await? == Some(TableStatus::Active) {
            return Ok(());
        }
        super::connection::pause(&store.client, attempt.min(4)).await;
    }
    Err(StoreError::Backend(format!(
        "table {} did not become active",
        store.table
    )))
}

async fn enable_ttl(store: &DynamoStore) -> Result<(), StoreError> {
    let out = store
        .client
        .describe_time_to_live()
        .table_name(&store.table)
        .send()
        .await
        .map_err(|e| sdk_error("DescribeTimeToLive", &e))?;
    if let Some(d) = out.time_to_live_description() {
        let on = matches!(
            d.time_to_live_status(),
            Some(TimeToLiveStatus::Enabled | TimeToLiveStatus::Enabling)
        );
        if on && d.attribute_name() == Some(EXPIRES_AT) {
            return Ok(());
        }
    }
    let spec = TimeToLiveSpecification::builder()
        .enabled(true)
        .attribute_name(EXPIRES_AT)
        .build()
        .map_err(build_error)?;
    let res = store
        .client
        .update_time_to_live()
        .table_name(&store.table)
        .time_to_live_specification(spec)
        .send()
        .await;
    match res {
        Ok(_) => Ok(()),
        Err(e)
            if e.code() == Some("ValidationException")
                && e.message().is_some_and(|m| m.contains("already enabled")) =>
        {
            Ok(())
        }
        Err(e) => Err(sdk_error("UpdateTimeToLive", &e)),
    }
}
