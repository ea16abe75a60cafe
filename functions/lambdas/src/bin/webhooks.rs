//! The Lambda binary of the webhook pipeline (issue 23, docs/events-design.md §2): the fan-out
//! function (the table's stream) and the delivery function (the FIFO queue) of
//! `ciam_api::WEBHOOK_FUNCTIONS`, by `CIAM_ROUTE`. No HTTP route; the only binary that links
//! the SQS client.

use std::sync::Arc;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    ciam_lambdas::webhooks::run(|ciam| Arc::new(ciam_lambdas::webhooks::CorePipeline::new(ciam)))
        .await
}
