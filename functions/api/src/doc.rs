//! What a handler's signature says about its operation in docs/openapi.json
//! (docs/api-document.md §3): the JSON body it reads (its `Json<T>` extractor) and the JSON it
//! answers (its return type, `Reply<T>` or `axum::Json<T>`), as JSON Schemas from the types
//! themselves (`schemars`). Each row keeps a function that asks its handler (`RouteDef::shape`,
//! under the `openapi` feature, which only `ciam-gen` turns on: no Lambda binary links any of
//! this), so the document cannot describe another type than the one the handler uses.

use crate::error::ApiError;
use crate::reply::{OrDownload, Reply};
use crate::AppState;
use axum::body::Bytes;
use axum::extract::{Path, Query, RawQuery, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use std::future::Future;

/// The two generators a shape is read with: requests under serde's deserialize contract,
/// inlined (a request type is its operation's alone); answers under the serialize contract,
/// named types in `components.schemas`.
pub struct Generators {
    pub request: SchemaGenerator,
    pub answer: SchemaGenerator,
}

/// What one handler's signature gives its operation.
#[derive(Default)]
pub struct Shape {
    /// The JSON request body's schema (`Json<T>`).
    pub request: Option<Schema>,
    /// The JSON answers by status (`Reply<T, S>`: S; `axum::Json<T>`: 200).
    pub answers: Vec<(u16, Schema)>,
}

/// An extractor's part of the operation (most add nothing: the row says who may call).
pub trait Part {
    fn add(_shape: &mut Shape, _gens: &mut Generators) {}
}

/// Extractors that add nothing (the row says who may call). Ciam's own extractors say their
/// part where they are defined (`extract.rs`: `Json<T>` is the request body), so that this
/// file depends on none of them.
macro_rules! no_part {
    ($($t:ty),* $(,)?) => { $( impl Part for $t {} )* };
}
pub(crate) use no_part;

no_part!(HeaderMap, Bytes, Request, RawQuery, State<AppState>,);
impl<T> Part for Path<T> {}
/// Query parameters are still the source's (docs/openapi/source.json).
impl<T> Part for Query<T> {}
/// An extractor taken as a `Result` (the handler answers its rejection itself).
impl<T: Part, E> Part for Result<T, E> {
    fn add(shape: &mut Shape, gens: &mut Generators) {
        T::add(shape, gens)
    }
}

/// A return type's part: the answers it can be.
pub trait Outcome {
    fn add(_shape: &mut Shape, _gens: &mut Generators) {}
}

/// An untyped answer: the operation's answers come from docs/openapi/source.json.
impl Outcome for Response {}
impl Outcome for StatusCode {}

impl<T: Outcome> Outcome for Result<T, ApiError> {
    fn add(shape: &mut Shape, gens: &mut Generators) {
        T::add(shape, gens)
    }
}

impl<T: JsonSchema> Outcome for axum::Json<T> {
    fn add(shape: &mut Shape, gens: &mut Generators) {
        shape.answers.push((200, gens.answer.subschema_for::<T>()));
    }
}

impl<T: JsonSchema, const S: u16> Outcome for Reply<T, S> {
    fn add(shape: &mut Shape, gens: &mut Generators) {
        shape.answers.push((S, gens.answer.subschema_for::<T>()));
    }
}

/// The JSON answer is the type's; the downloads' content types are the source's (the generator
/// puts the JSON beside them in the 200 answer).
impl<T: JsonSchema> Outcome for OrDownload<T> {
    fn add(shape: &mut Shape, gens: &mut Generators) {
        shape.answers.push((200, gens.answer.subschema_for::<T>()));
    }
}

/// A handler whose signature can be read: every argument a [`Part`], the answer an
/// [`Outcome`]. `M` is the argument tuple (inferred, as axum's `Handler` does).
pub trait Described<M> {
    fn shape(gens: &mut Generators) -> Shape;
}

macro_rules! described {
    ($($a:ident),*) => {
        impl<F, Fut, $($a,)*> Described<($($a,)*)> for F
        where
            F: Fn($($a),*) -> Fut,
            Fut: Future,
            Fut::Output: Outcome,
            $($a: Part,)*
        {
            fn shape(gens: &mut Generators) -> Shape {
                let mut shape = Shape::default();
                $( <$a as Part>::add(&mut shape, gens); )*
                <Fut::Output as Outcome>::add(&mut shape, gens);
                shape
            }
        }
    };
}
described!();
described!(A1);
described!(A1, A2);
described!(A1, A2, A3);
described!(A1, A2, A3, A4);
described!(A1, A2, A3, A4, A5);
described!(A1, A2, A3, A4, A5, A6);
described!(A1, A2, A3, A4, A5, A6, A7);

/// The shape of `handler` (the route! macro's `shape`).
pub fn shape_of<M, H: Described<M>>(_handler: H, gens: &mut Generators) -> Shape {
    H::shape(gens)
}
