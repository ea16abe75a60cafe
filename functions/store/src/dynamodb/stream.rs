//! Items as the table's stream shows them to a Lambda function: the `NewImage` of a stream
//! record is a map of attribute values in DynamoDB's JSON (`{"S": "..."}`, `{"N": "12"}`, ...).
//! The webhook fan-out function (issue 23) reads its events this way; the conversion is the
//! engine's own (`convert::item_from_map`), so an item reads the same from the stream as from
//! a `GetItem`.

use super::convert::{item_from_map, AvMap};
use crate::{Item, StoreError};
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::Value as Json;

fn bad(what: &str) -> StoreError {
    StoreError::Backend(format!("unexpected attribute in a stream image: {what}"))
}

fn attribute(v: &Json) -> Result<AttributeValue, StoreError> {
    let Some((kind, inner)) = v
        .as_object()
        .filter(|m| m.len() == 1)
        .and_then(|m| m.iter().next())
    else {
        return Err(bad("not a one-member object"));
    };
    Ok(match (kind.as_str(), inner) {
        ("S", Json::String(s)) => AttributeValue::S(s.clone()),
        ("N", Json::String(n)) => AttributeValue::N(n.clone()),
        ("BOOL", Json::Bool(b)) => AttributeValue::Bool(*b),
        ("B", Json::String(b)) => AttributeValue::B(Blob::new(
            STANDARD
                .decode(b)
                .map_err(|_| bad("a binary that is not base64"))?,
        )),
        ("L", Json::Array(l)) => {
            AttributeValue::L(l.iter().map(attribute).collect::<Result<_, _>>()?)
        }
        ("M", Json::Object(m)) => AttributeValue::M(
            m.iter()
                .map(|(k, v)| Ok((k.clone(), attribute(v)?)))
                .collect::<Result<_, StoreError>>()?,
        ),
        (other, _) => return Err(bad(other)),
    })
}

/// The item of a stream record's image (`dynamodb.NewImage`), as the engine reads items.
pub fn item_from_image(image: &Json) -> Result<Item, StoreError> {
    let m: AvMap = image
        .as_object()
        .ok_or_else(|| bad("an image that is not an object"))?
        .iter()
        .map(|(k, v)| Ok((k.clone(), attribute(v)?)))
        .collect::<Result<_, StoreError>>()?;
    item_from_map(&m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Value;
    use serde_json::json;

    #[test]
    fn an_image_reads_as_the_item_the_engine_wrote() {
        let image = json!({
            "pk": {"S": "EVT#u1"},
            "sk": {"S": "001700000000#msg_1"},
            "type": {"S": "user.updated"},
            "at": {"N": "1700000000"},
            "flags": {"L": [{"S": "a"}, {"BOOL": true}]},
            "blob": {"B": "AQI="},
            "nested": {"M": {"n": {"N": "-3"}}},
            "expiresAt": {"N": "1702592000"},
            "tok0": {"S": "ring tokens are the engine's"}
        });
        let item = item_from_image(&image).unwrap();
        assert_eq!(
            (item.key.pk.as_str(), item.key.sk.as_str()),
            ("EVT#u1", "001700000000#msg_1")
        );
        assert_eq!(item.expires_at, Some(1_702_592_000));
        assert_eq!(item.s("type"), Some("user.updated"));
        assert_eq!(item.n("at"), Some(1_700_000_000));
        assert_eq!(item.attrs.get("blob"), Some(&Value::B(vec![1, 2])));
        assert!(!item.attrs.contains_key("tok0") && !item.attrs.contains_key("expiresAt"));
    }

    #[test]
    fn what_the_store_never_writes_is_an_error_not_a_guess() {
        for image in [
            json!({"pk": {"S": "EVT#u"}, "sk": {"S": "1#m"}, "x": {"NULL": true}}),
            json!({"pk": {"S": "EVT#u"}, "sk": {"S": "1#m"}, "x": {"N": "1.5"}}),
            json!({"pk": {"S": "EVT#u"}, "sk": {"S": "1#m"}, "x": {"SS": ["a"]}}),
            json!({"pk": {"S": "EVT#u"}}),
            json!(["not", "an", "image"]),
        ] {
            assert!(item_from_image(&image).is_err(), "{image}");
        }
    }
}
