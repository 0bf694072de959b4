//! A request's structured-output format read from the OpenAI-compatible requests
//! (`response_format`, `text.format`) as a [`ResponseFormat`], its schema checked before
//! anything is opened, and the format as a response object shows it.

use parley_protocol::error::ErrorCode;
use parley_protocol::output::ResponseFormat;
use parley_service::structured::Checker;

use super::types::{
    ChatCompletionRequest, ResponseCreateRequest, ResponseFormatType, ResponseTextFormat,
};
use crate::error::Problem;

/// The format a request asks for, and the body's field that asked.
#[derive(Debug, Clone)]
pub struct Asked {
    pub format: Option<ResponseFormat>,
    pub param: &'static str,
}

fn invalid(param: &str, detail: impl std::fmt::Display) -> Box<Problem> {
    Box::new(Problem::new(ErrorCode::InvalidParameter, format!("`{param}`: {detail}")).param(param))
}

impl Asked {
    fn read(
        kind: ResponseFormatType,
        named: Option<(String, Option<String>, Option<serde_json::Value>, bool)>,
        param: &'static str,
    ) -> Result<Self, Box<Problem>> {
        let format = match (kind, named) {
            (ResponseFormatType::Text, _) => None,
            (ResponseFormatType::JsonObject, _) => Some(ResponseFormat::JsonObject),
            (ResponseFormatType::JsonSchema, Some((name, description, Some(schema), strict))) => {
                Some(ResponseFormat::JsonSchema {
                    name,
                    description,
                    schema,
                    strict,
                })
            }
            (ResponseFormatType::JsonSchema, _) => {
                return Err(invalid(
                    param,
                    "a `json_schema` format needs its `name` and `schema`",
                ));
            }
        };
        if let Some(format) = &format
            && let Err(problem) = Checker::new(format)
        {
            return Err(invalid(param, problem));
        }
        Ok(Self { format, param })
    }

    /// The problem of a model that cannot answer in a format.
    pub fn unsupported(&self, model: &str) -> Box<Problem> {
        Box::new(
            Problem::new(
                ErrorCode::UnsupportedParameter,
                format!(
                    "`{}`: the model `{model}` cannot answer in a structured format; leave it out or name another model",
                    self.param
                ),
            )
            .param(self.param),
        )
    }
}

impl ChatCompletionRequest {
    /// The format this request asks for (`response_format`).
    pub fn format(&self) -> Result<Asked, Box<Problem>> {
        let Some(format) = &self.response_format else {
            return Ok(Asked {
                format: None,
                param: "response_format",
            });
        };
        let named = format
            .json_schema
            .clone()
            .map(|s| (s.name, s.description, s.schema, s.strict.unwrap_or(false)));
        Asked::read(format.kind, named, "response_format")
    }
}

impl ResponseCreateRequest {
    /// The format this request asks for (`text.format`).
    pub fn format(&self) -> Result<Asked, Box<Problem>> {
        let Some(format) = self.text.as_ref().and_then(|t| t.format.clone()) else {
            return Ok(Asked {
                format: None,
                param: "text.format",
            });
        };
        let named = format.name.map(|name| {
            (
                name,
                format.description,
                format.schema,
                format.strict.unwrap_or(false),
            )
        });
        Asked::read(format.kind, named, "text.format")
    }
}

/// A response object's `text.format`: the format the turn used.
pub fn shown(format: Option<&ResponseFormat>) -> ResponseTextFormat {
    let plain = ResponseTextFormat {
        kind: "text".into(),
        name: None,
        description: None,
        schema: None,
        strict: None,
    };
    match format {
        None => plain,
        Some(ResponseFormat::JsonObject) => ResponseTextFormat {
            kind: "json_object".into(),
            ..plain
        },
        Some(ResponseFormat::JsonSchema {
            name,
            description,
            schema,
            strict,
        }) => ResponseTextFormat {
            kind: "json_schema".into(),
            name: Some(name.clone()),
            description: description.clone(),
            schema: Some(schema.clone()),
            strict: Some(*strict),
        },
    }
}
