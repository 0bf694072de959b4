//! The catalogue of error codes ([`ErrorCode`]): one line per code, expanded by the
//! `catalogue!` macro into the enum, its strings, statuses, turn messages, serde, the
//! database form and the document's schema. The module docs of `error` say how to add
//! one.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Declares the catalogue: the enum, its strings, statuses and messages, serde, the
/// database form behind the `db` feature (`prompts.error_code`, `varchar(24)`: only codes
/// a turn ends with are stored, and those fit), and the document's schema behind
/// `openapi`, whose description lists every code with its status and meaning.
macro_rules! catalogue {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $(
                #[doc = $doc:literal]
                $variant:ident = $value:literal, $status:literal $(, turn $message:literal)?;
            )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "db", derive(sea_orm::EnumIter, sea_orm::DeriveActiveEnum))]
        #[cfg_attr(
            feature = "db",
            sea_orm(rs_type = "String", db_type = "String(sea_orm::sea_query::StringLen::N(24))")
        )]
        pub enum $name {
            $(
                #[doc = $doc]
                #[serde(rename = $value)]
                #[cfg_attr(feature = "db", sea_orm(string_value = $value))]
                $variant,
            )+
        }

        impl $name {
            /// Every code, in the catalogue's order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            /// The code as it is written everywhere (snake_case).
            pub const fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $value),+ }
            }

            /// The code written as `s`, if the catalogue has it.
            pub fn parse(s: &str) -> Option<Self> {
                match s {
                    $($value => Some(Self::$variant),)+
                    _ => None,
                }
            }

            /// The HTTP status a problem with this code answers. A generic code
            /// ([`Self::for_status`]) stands for whatever status poem chose, which the
            /// problem keeps.
            pub const fn status(self) -> u16 {
                match self { $(Self::$variant => $status),+ }
            }

            /// Whether a turn can end with this code (an `error` event, a failed prompt).
            pub const fn ends_turn(self) -> bool {
                match self { $(Self::$variant => catalogue!(@is $($message)?)),+ }
            }

            /// The stable message of a turn that ended with this code — free of backend
            /// detail: what the provider or a backend said is logged, never sent to a
            /// client. For a code no turn ends with, what the code means.
            pub fn message(self) -> &'static str {
                match self { $(Self::$variant => catalogue!(@message $doc $(, $message)?)),+ }
            }

            /// The description of the document's `ErrorCode` schema.
            #[cfg(feature = "openapi")]
            const DESCRIPTION: &'static str = concat!(
                "A stable, machine-readable error code: the `code` of a problem+json body, of \
                 an `error` event and of a failed prompt. Each is listed with the HTTP status \
                 of a problem with it; † marks the codes a turn can end with (an `error` \
                 event, `Prompt.error_code`). Clients should accept codes they do not know: \
                 later versions add some.\n",
                $("\n* `", $value, "` (", $status, catalogue!(@mark $($message)?), "):", $doc,)+
            );
        }

        #[cfg(feature = "openapi")]
        impl poem_openapi::types::Type for $name {
            const IS_REQUIRED: bool = true;
            type RawValueType = Self;
            type RawElementValueType = Self;

            fn name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn schema_ref() -> poem_openapi::registry::MetaSchemaRef {
                poem_openapi::registry::MetaSchemaRef::Reference(stringify!($name).into())
            }

            fn register(registry: &mut poem_openapi::registry::Registry) {
                registry.create_schema::<Self, _>(stringify!($name).into(), |_| {
                    poem_openapi::registry::MetaSchema {
                        description: Some(Self::DESCRIPTION),
                        enum_items: Self::ALL
                            .iter()
                            .map(|code| serde_json::Value::from(code.as_str()))
                            .collect(),
                        ..poem_openapi::registry::MetaSchema::new("string")
                    }
                });
            }

            fn as_raw_value(&self) -> Option<&Self> {
                Some(self)
            }

            fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self> + 'a> {
                Box::new(self.as_raw_value().into_iter())
            }
        }

        #[cfg(feature = "openapi")]
        impl poem_openapi::types::ParseFromJSON for $name {
            fn parse_from_json(
                value: Option<serde_json::Value>,
            ) -> poem_openapi::types::ParseResult<Self> {
                let value = value.unwrap_or_default();
                value
                    .as_str()
                    .and_then(Self::parse)
                    .ok_or_else(|| poem_openapi::types::ParseError::expected_type(value))
            }
        }

        #[cfg(feature = "openapi")]
        impl poem_openapi::types::ToJSON for $name {
            fn to_json(&self) -> Option<serde_json::Value> {
                Some(self.as_str().into())
            }
        }
    };
    (@is $message:literal) => { true };
    (@is) => { false };
    (@mark $message:literal) => { ", †" };
    (@mark) => { "" };
    (@message $doc:literal, $message:literal) => { $message };
    (@message $doc:literal) => { $doc.trim_ascii() };
}

catalogue! {
    /// Every error code Parley answers with (module docs). One line per code: its doc
    /// (one sentence, the document's description too), the string, the HTTP status, and
    /// `turn "…"` with the stable message of a turn that ends with it.
    pub enum ErrorCode {
        // What a turn ends with: the `code` of an `error` event, `prompts.error_code`;
        // the status is the answer of a client that waited for the turn.
        /// The model provider failed (an error status, a broken stream, unreachable).
        UpstreamError = "upstream_error", 502, turn "the model provider failed to answer";
        /// The model provider stopped sending tokens.
        UpstreamStall = "upstream_stall", 504, turn "the model provider stopped sending tokens";
        /// The model is not served here.
        UnknownModel = "unknown_model", 422, turn "the model is not served here";
        /// The model's answer did not fit the requested response format, asked twice.
        OutputMismatch = "output_mismatch", 502,
            turn "the model's answer does not fit the requested response format";
        /// The model provider is rate limiting.
        RateLimited = "rate_limited", 429,
            turn "the model provider is rate limiting; try again later";
        /// A spending budget (the user's or a group's, per day or month) is used up.
        BudgetExceeded = "budget_exceeded", 429,
            turn "over the spending budget; try again when its period ends";
        /// A function call failed in a way the turn cannot continue past.
        ToolError = "tool_error", 502, turn "a function call failed";
        /// The turn took longer than allowed, or is still running after the wait.
        Timeout = "timeout", 504, turn "the turn took too long";
        /// A dependency (database, job queue, event log) cannot serve the request, or queue a turn.
        Unavailable = "unavailable", 503, turn "the turn could not be queued; resume it later";
        /// Parley failed internally; the request id helps find it in the logs.
        InternalError = "internal_error", 500, turn "internal error";

        // Credentials, roles, limits.
        /// Missing, invalid, expired or revoked credentials.
        Unauthenticated = "unauthenticated", 401;
        /// The caller's role does not allow this.
        Forbidden = "forbidden", 403;
        /// Too many failed authentications from the client's address.
        AuthThrottled = "auth_throttled", 429;
        /// Over a quota: the user's or the group's turns per minute or tokens per day.
        QuotaExceeded = "quota_exceeded", 429;
        /// A browser origin the deployment does not allow.
        CorsOriginRefused = "cors_origin_refused", 403;
        /// The server is not ready: a dependency is down (`/readyz`).
        NotReady = "not_ready", 503;

        // The request itself.
        /// No such resource or route, or it belongs to someone else.
        NotFound = "not_found", 404;
        /// The route does not accept that method (`Allow` says which it does).
        MethodNotAllowed = "method_not_allowed", 405;
        /// A query or header parameter does not parse or breaks its bounds.
        InvalidParameter = "invalid_parameter", 400;
        /// A `cursor` the list did not hand out.
        InvalidCursor = "invalid_cursor", 400;
        /// The body is not valid JSON.
        MalformedJson = "malformed_json", 400;
        /// The body could not be read.
        UnreadableBody = "unreadable_body", 400;
        /// The body is larger than the configured limit.
        PayloadTooLarge = "payload_too_large", 413;
        /// The body is not `application/json`.
        UnsupportedMediaType = "unsupported_media_type", 415;
        /// The body is JSON but does not fit the schema.
        ValidationFailed = "validation_failed", 422;
        /// Any other malformed request poem refused (generic: the status is poem's).
        BadRequest = "bad_request", 400;
        /// Any other conflict poem reported (generic: the status is poem's).
        Conflict = "conflict", 409;
        /// Any other error poem answered (generic: the status is poem's).
        Error = "error", 400;

        // Uploads.
        /// An uploaded file of a type Parley cannot use.
        UnsupportedFileType = "unsupported_file_type", 415;
        /// An uploaded file that is empty, a PDF without text or one that cannot be read.
        UnreadableFile = "unreadable_file", 422;

        // Sessions and turns.
        /// The session is completed: it takes no more messages.
        SessionCompleted = "session_completed", 409;
        /// Another prompt of the session is running.
        PromptActive = "prompt_active", 409;
        /// The prompt has already finished.
        PromptFinished = "prompt_finished", 409;
        /// Only a failed or errored prompt can be resumed, and this one changed meanwhile.
        NotResumable = "not_resumable", 409;
        /// The session is not answering anything.
        NothingToCancel = "nothing_to_cancel", 409;
        /// The turn was cancelled while the client waited for it.
        Cancelled = "cancelled", 409;
        /// The session's last answer does not offer that action.
        ActionNotOffered = "action_not_offered", 409;
        /// The session reached its `max_messages` limit and is now completed.
        MaxMessagesReached = "max_messages_reached", 409;
        /// The session reached its `max_session_duration_s` limit and is now completed.
        MaxSessionDurationReached = "max_session_duration_reached", 409;
        /// The assignment is not open yet.
        AssignmentNotOpen = "assignment_not_open", 409;
        /// The assignment has closed.
        AssignmentClosed = "assignment_closed", 409;
        /// This `Idempotency-Key` was sent with a different request.
        IdempotencyKeyReused = "idempotency_key_reused", 422;
        /// The message is empty.
        EmptyMessage = "empty_message", 422;
        /// The message is longer than the deployment allows.
        MessageTooLong = "message_too_long", 422;
        /// The message carries more attachments than allowed.
        TooManyAttachments = "too_many_attachments", 422;
        /// A file is attached twice.
        DuplicateAttachment = "duplicate_attachment", 422;
        /// The message's `response_format` cannot be used (not a JSON schema, a bad name).
        InvalidResponseFormat = "invalid_response_format", 422;
        /// The answering model cannot answer in a structured format.
        FormatUnsupported = "format_unsupported", 422;
        /// Not an action the server runs.
        UnknownAction = "unknown_action", 422;
        /// The caller may use no chat tool, and named none.
        NoTool = "no_tool", 422;
        /// The assignment is done with a different tool.
        ToolMismatch = "tool_mismatch", 422;
        /// The submission belongs to another assignment.
        SubmissionMismatch = "submission_mismatch", 422;
        /// The message a body names is not one of the session's.
        MessageNotFound = "message_not_found", 422;
        /// Only a user message, or an answer to one, can be regenerated.
        NothingToRegenerate = "nothing_to_regenerate", 422;
        /// A session title that is blank or longer than 200 characters.
        InvalidTitle = "invalid_title", 422;
        /// A search without a word to look for.
        EmptyQuery = "empty_query", 422;
        /// The function call is not waiting for approval (decided, expired or cancelled).
        NotAwaitingApproval = "not_awaiting_approval", 409;
        /// Edited input for an approved call that does not fit the function's schema.
        InvalidApprovalInput = "invalid_approval_input", 422;
        /// The call is not waiting for its caller's result (answered, expired, cancelled).
        NotAwaitingResult = "not_awaiting_result", 409;
        /// A client function's result is not what the function declares.
        InvalidCallResult = "invalid_call_result", 422;
        /// A message's `client_functions` cannot be offered (a bad name or schema, a clash).
        InvalidClientFunction = "invalid_client_function", 422;
        /// Feedback is given on answers (assistant messages) only.
        NotAnAnswer = "not_an_answer", 422;

        // Administration.
        /// A record with the same unique value already exists.
        AlreadyExists = "already_exists", 409;
        /// Other records still refer to it, or a referenced record does not exist.
        StillReferenced = "still_referenced", 409;
        /// A user with this e-mail address already exists.
        EmailTaken = "email_taken", 409;
        /// An administrator cannot revoke the token the request is made with.
        TokenInUse = "token_in_use", 409;
        /// An administrator cannot remove their own admin role.
        CannotDemoteSelf = "cannot_demote_self", 409;
        /// An administrator cannot disable themselves.
        CannotDisableSelf = "cannot_disable_self", 409;
        /// An administrator cannot delete themselves.
        CannotDeleteSelf = "cannot_delete_self", 409;
        /// Sessions or assignments use the tool, so it is kept as part of their record.
        ToolInUse = "tool_in_use", 409;
        /// The user has sessions or other records that must be kept.
        UserHasSessions = "user_has_sessions", 409;
        /// The group still has sub-groups, tools or classes.
        GroupNotEmpty = "group_not_empty", 409;
        /// `closes_at` is not later than `available_at`.
        InvalidWindow = "invalid_window", 422;
        /// The class does not exist.
        ClassNotFound = "class_not_found", 422;
        /// The tool does not exist.
        ToolNotFound = "tool_not_found", 422;
        /// The parent group does not exist.
        ParentNotFound = "parent_not_found", 422;
        /// The group does not exist.
        GroupNotFound = "group_not_found", 422;
        /// The user does not exist.
        UserNotFound = "user_not_found", 422;
        /// The user or group already has a budget for this period.
        BudgetExists = "budget_exists", 409;
        /// Not a function of this deployment.
        UnknownFunction = "unknown_function", 422;
        /// Not a payload type of this deployment, or not one a model can write.
        UnknownPayloadType = "unknown_payload_type", 422;
        /// Not a module of this deployment, or listed twice.
        UnknownModule = "unknown_module", 422;
        /// A module's configuration it does not accept.
        InvalidModuleConfig = "invalid_module_config", 422;

        // The OpenAI-compatible surface (`/openai/`; there a 422 is answered 400).
        /// No such model.
        ModelNotFound = "model_not_found", 404;
        /// No such earlier response, or it belongs to someone else.
        PreviousResponseNotFound = "previous_response_not_found", 404;
        /// Content parts other than text.
        UnsupportedContent = "unsupported_content", 400;
        /// The last message is not the user's, with text.
        LastMessageNotUser = "last_message_not_user", 400;
        /// An input item Parley cannot read: an unknown type, or a client function's result for a turn that offered none.
        UnsupportedInput = "unsupported_input", 400;
        /// A request option Parley does not offer (`n` above 1, `logprobs`, `audio`, …).
        UnsupportedParameter = "unsupported_parameter", 400;
        /// An `item_reference` names no output item of the caller's responses.
        ItemNotFound = "item_not_found", 404;
        /// The response has finished: it cannot be cancelled.
        ResponseFinished = "response_finished", 400;
    }
}

impl ErrorCode {
    /// The code of a problem whose status poem chose (an error poem raised, or a plain
    /// response): the specific code where the status has one, else a generic one.
    pub fn for_status(status: u16) -> Self {
        match status {
            400 => Self::BadRequest,
            401 => Self::Unauthenticated,
            403 => Self::Forbidden,
            404 => Self::NotFound,
            409 => Self::Conflict,
            413 => Self::PayloadTooLarge,
            422 => Self::ValidationFailed,
            503 => Self::Unavailable,
            500..=599 => Self::InternalError,
            _ => Self::Error,
        }
    }

    /// Whether running the turn again may succeed (a wrong model never will).
    pub fn may_succeed_later(self) -> bool {
        !matches!(self, Self::UnknownModel)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
