//! A message's `response_format` (DESIGN §7): what the answer must be besides text. The
//! body's shape is the Responses API's `text.format`, flat; the service checks the schema
//! and the answering model (`parley_service::turns`), the worker the answer.

use parley_protocol::{
    error::{Error, ErrorCode},
    output::ResponseFormat,
    wire::JsonObject,
};
use poem_openapi::{Enum, Object};

use crate::types::Text;

/// What a structured answer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename = "OutputFormatType", rename_all = "snake_case")]
pub enum OutputFormatType {
    /// Any JSON object.
    JsonObject,
    /// A value of `schema`.
    JsonSchema,
}

/// The answer must be one JSON value of this format. It is asked of the model where the
/// provider can constrain its output, and checked before `complete`: an answer that does
/// not fit is taken back unseen and asked for once more with what was wrong; a second
/// misfit ends the turn with an `error` event `output_mismatch` naming the place in the
/// value. The answer's text (`complete.payload.message`) is the JSON. A model that
/// cannot answer in a format: 422 `format_unsupported`; a schema that is no JSON schema:
/// 422 `invalid_response_format`.
#[derive(Debug, Clone, Object)]
#[oai(rename = "OutputFormat", deny_unknown_fields)]
pub struct OutputFormat {
    #[oai(rename = "type")]
    pub kind: OutputFormatType,
    /// The format's name (`json_schema`: required; letters, digits, `_` and `-`).
    #[oai(validator(min_length = 1, max_length = 64))]
    pub name: Option<Text>,
    /// What the value is, for the model.
    #[oai(validator(max_length = 4096))]
    pub description: Option<Text>,
    /// The JSON schema the value must fit (`json_schema`: required).
    pub schema: Option<JsonObject>,
    /// Ask the provider to keep to the schema exactly (OpenAI's strict mode); the answer
    /// is checked either way.
    pub strict: Option<bool>,
}

impl TryFrom<OutputFormat> for ResponseFormat {
    type Error = Error;

    fn try_from(format: OutputFormat) -> Result<Self, Error> {
        match (format.kind, format.name, format.schema) {
            (OutputFormatType::JsonObject, _, _) => Ok(Self::JsonObject),
            (OutputFormatType::JsonSchema, Some(name), Some(schema)) => Ok(Self::JsonSchema {
                name: name.into_inner(),
                description: format.description.map(Text::into_inner),
                schema: schema.into(),
                strict: format.strict.unwrap_or(false),
            }),
            (OutputFormatType::JsonSchema, _, _) => Err(Error::invalid(
                ErrorCode::InvalidResponseFormat,
                "`response_format`: a `json_schema` format needs its `name` and `schema`",
            )),
        }
    }
}
