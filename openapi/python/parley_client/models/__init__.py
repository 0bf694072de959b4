"""Contains all the data models used in inputs/outputs"""

from .accepted_turn import AcceptedTurn
from .action_handler import ActionHandler
from .action_result import ActionResult
from .admin_feedback import AdminFeedback
from .approval_list import ApprovalList
from .approval_requested_event import ApprovalRequestedEvent
from .approval_requested_prompt_event import ApprovalRequestedPromptEvent
from .approval_resolved_event import ApprovalResolvedEvent
from .approve_call import ApproveCall
from .approve_call_input_type_0 import ApproveCallInputType0
from .ask_answer import AskAnswer
from .ask_request import AskRequest
from .assignment import Assignment
from .assignment_scope import AssignmentScope
from .attachment import Attachment
from .block import Block
from .block_category import BlockCategory
from .block_event import BlockEvent
from .block_group import BlockGroup
from .block_report import BlockReport
from .block_start_event import BlockStartEvent
from .block_stop_event import BlockStopEvent
from .block_type import BlockType
from .blocks_group_by import BlocksGroupBy
from .bound import Bound
from .breaker_state_name import BreakerStateName
from .budget import Budget
from .budget_period import BudgetPeriod
from .budget_subject import BudgetSubject
from .call_error import CallError
from .cancelled_event import CancelledEvent
from .chat_completion import ChatCompletion
from .chat_completion_choice import ChatCompletionChoice
from .chat_completion_chunk import ChatCompletionChunk
from .chat_completion_chunk_choice import ChatCompletionChunkChoice
from .chat_completion_delta import ChatCompletionDelta
from .chat_completion_message import ChatCompletionMessage
from .chat_completion_request import ChatCompletionRequest
from .chat_completion_sse_event import ChatCompletionSseEvent
from .chat_completion_tokens_details import ChatCompletionTokensDetails
from .chat_completion_usage import ChatCompletionUsage
from .chat_content_part import ChatContentPart
from .chat_file_data import ChatFileData
from .chat_function_call import ChatFunctionCall
from .chat_function_call_delta import ChatFunctionCallDelta
from .chat_function_def import ChatFunctionDef
from .chat_image_url import ChatImageUrl
from .chat_message_input import ChatMessageInput
from .chat_prompt_tokens_details import ChatPromptTokensDetails
from .chat_response_format import ChatResponseFormat
from .chat_response_payload import ChatResponsePayload
from .chat_role import ChatRole
from .chat_stream_options import ChatStreamOptions
from .chat_tool import ChatTool
from .chat_tool_call import ChatToolCall
from .chat_tool_call_delta import ChatToolCallDelta
from .class_ import Class
from .class_person import ClassPerson
from .class_scope import ClassScope
from .client_call_error import ClientCallError
from .client_call_output import ClientCallOutput
from .client_call_requested_event import ClientCallRequestedEvent
from .client_call_text import ClientCallText
from .client_function import ClientFunction
from .client_function_parameters_type_0 import ClientFunctionParametersType0
from .client_function_returns_type_0 import ClientFunctionReturnsType0
from .compaction import Compaction
from .complete_event import CompleteEvent
from .config_overrides import ConfigOverrides
from .conversation_context import ConversationContext
from .conversation_message import ConversationMessage
from .create_assignment import CreateAssignment
from .create_budget import CreateBudget
from .create_class import CreateClass
from .create_group import CreateGroup
from .create_message import CreateMessage
from .create_session import CreateSession
from .create_token import CreateToken
from .create_tool import CreateTool
from .create_user import CreateUser
from .created_token import CreatedToken
from .custom_payload import CustomPayload
from .delta_event import DeltaEvent
from .deny_call import DenyCall
from .enrollment import Enrollment
from .enrollment_role import EnrollmentRole
from .error_code import ErrorCode
from .error_event import ErrorEvent
from .event_name import EventName
from .exported_conversation import ExportedConversation
from .exported_function import ExportedFunction
from .exported_function_call import ExportedFunctionCall
from .exported_function_parameters import ExportedFunctionParameters
from .exported_message import ExportedMessage
from .exported_role import ExportedRole
from .exported_tool import ExportedTool
from .exported_tool_call import ExportedToolCall
from .exported_tool_kind import ExportedToolKind
from .extraction import Extraction
from .fallback_event import FallbackEvent
from .fallback_reason import FallbackReason
from .feed_token import FeedToken
from .feedback import Feedback
from .feedback_by_model import FeedbackByModel
from .feedback_by_rating import FeedbackByRating
from .feedback_by_tool import FeedbackByTool
from .feedback_metrics import FeedbackMetrics
from .file import File
from .file_kind import FileKind
from .finished_turn import FinishedTurn
from .function import Function
from .function_list import FunctionList
from .function_mode import FunctionMode
from .function_parameters import FunctionParameters
from .give_feedback import GiveFeedback
from .group import Group
from .group_scope import GroupScope
from .health import Health
from .history_settings import HistorySettings
from .hook import Hook
from .hook_action import HookAction
from .hook_audit import HookAudit
from .hook_context import HookContext
from .hook_extraction import HookExtraction
from .hook_result import HookResult
from .json_schema_format import JsonSchemaFormat
from .member_role import MemberRole
from .membership import Membership
from .message import Message
from .message_audit import MessageAudit
from .message_role import MessageRole
from .model import Model
from .model_list import ModelList
from .modifications import Modifications
from .module_event import ModuleEvent
from .module_info import ModuleInfo
from .module_info_config import ModuleInfoConfig
from .module_kind_name import ModuleKindName
from .module_list import ModuleList
from .module_outcome import ModuleOutcome
from .note import Note
from .on_active import OnActive
from .open_ai_error import OpenAiError
from .open_ai_error_detail import OpenAiErrorDetail
from .open_ai_model import OpenAiModel
from .open_ai_model_list import OpenAiModelList
from .open_ai_response import OpenAiResponse
from .open_ai_response_error import OpenAiResponseError
from .open_ai_response_metadata import OpenAiResponseMetadata
from .out_of_bounds import OutOfBounds
from .output_format import OutputFormat
from .output_format_schema_type_0 import OutputFormatSchemaType0
from .output_format_type import OutputFormatType
from .page_admin_feedback import PageAdminFeedback
from .page_assignment import PageAssignment
from .page_block_event import PageBlockEvent
from .page_budget import PageBudget
from .page_class import PageClass
from .page_enrollment import PageEnrollment
from .page_group import PageGroup
from .page_membership import PageMembership
from .page_message import PageMessage
from .page_note import PageNote
from .page_session import PageSession
from .page_teaching_block import PageTeachingBlock
from .page_teaching_class import PageTeachingClass
from .page_teaching_extraction import PageTeachingExtraction
from .page_teaching_session import PageTeachingSession
from .page_todo import PageTodo
from .page_tool import PageTool
from .page_tool_summary import PageToolSummary
from .page_usage_call import PageUsageCall
from .page_usage_group import PageUsageGroup
from .page_user import PageUser
from .payload_source_kind import PayloadSourceKind
from .payload_type_info import PayloadTypeInfo
from .payload_type_info_frontend_config import PayloadTypeInfoFrontendConfig
from .payload_type_info_schema import PayloadTypeInfoSchema
from .payload_type_list import PayloadTypeList
from .ping_event import PingEvent
from .problem import Problem
from .prompt import Prompt
from .prompt_state import PromptState
from .prompt_state_event import PromptStateEvent
from .prompt_stats import PromptStats
from .provider_breaker import ProviderBreaker
from .provider_failure import ProviderFailure
from .provider_status import ProviderStatus
from .providers_report import ProvidersReport
from .put_enrollment import PutEnrollment
from .put_member import PutMember
from .rating import Rating
from .readiness import Readiness
from .readiness_checks import ReadinessChecks
from .reconnect_event import ReconnectEvent
from .regenerate_message import RegenerateMessage
from .replay import Replay
from .replayed_message import ReplayedMessage
from .request_context import RequestContext
from .reset_event import ResetEvent
from .response_create_request import ResponseCreateRequest
from .response_format_type import ResponseFormatType
from .response_function_call import ResponseFunctionCall
from .response_function_tool import ResponseFunctionTool
from .response_incomplete_details import ResponseIncompleteDetails
from .response_input_content_part import ResponseInputContentPart
from .response_input_item import ResponseInputItem
from .response_input_tokens_details import ResponseInputTokensDetails
from .response_mcp_call import ResponseMcpCall
from .response_output_item_response_function_call import (
    ResponseOutputItemResponseFunctionCall,
)
from .response_output_item_response_function_call_type import (
    ResponseOutputItemResponseFunctionCallType,
)
from .response_output_item_response_mcp_call import ResponseOutputItemResponseMcpCall
from .response_output_item_response_mcp_call_type import (
    ResponseOutputItemResponseMcpCallType,
)
from .response_output_item_response_output_message import (
    ResponseOutputItemResponseOutputMessage,
)
from .response_output_item_response_output_message_type import (
    ResponseOutputItemResponseOutputMessageType,
)
from .response_output_message import ResponseOutputMessage
from .response_output_text import ResponseOutputText
from .response_output_tokens_details import ResponseOutputTokensDetails
from .response_reasoning import ResponseReasoning
from .response_sse_event import ResponseSseEvent
from .response_stream_event import ResponseStreamEvent
from .response_text import ResponseText
from .response_text_format import ResponseTextFormat
from .response_text_format_param import ResponseTextFormatParam
from .response_text_param import ResponseTextParam
from .response_usage import ResponseUsage
from .retry_event import RetryEvent
from .route_decision import RouteDecision
from .run_action import RunAction
from .sampling_bounds import SamplingBounds
from .scope_context import ScopeContext
from .server_action_name import ServerActionName
from .session import Session
from .session_assignment import SessionAssignment
from .session_audit import SessionAudit
from .session_config import SessionConfig
from .session_context import SessionContext
from .session_created_event import SessionCreatedEvent
from .session_deleted_event import SessionDeletedEvent
from .session_match import SessionMatch
from .session_matches import SessionMatches
from .session_state import SessionState
from .session_summary import SessionSummary
from .session_updated_event import SessionUpdatedEvent
from .skill_name import SkillName
from .sse_event import SseEvent
from .state_count import StateCount
from .status_event import StatusEvent
from .stop_reason import StopReason
from .stream_event_approval_requested_prompt_event import (
    StreamEventApprovalRequestedPromptEvent,
)
from .stream_event_approval_requested_prompt_event_type import (
    StreamEventApprovalRequestedPromptEventType,
)
from .stream_event_block_start_event import StreamEventBlockStartEvent
from .stream_event_block_start_event_type import StreamEventBlockStartEventType
from .stream_event_block_stop_event import StreamEventBlockStopEvent
from .stream_event_block_stop_event_type import StreamEventBlockStopEventType
from .stream_event_cancelled_event import StreamEventCancelledEvent
from .stream_event_cancelled_event_type import StreamEventCancelledEventType
from .stream_event_client_call_requested_event import (
    StreamEventClientCallRequestedEvent,
)
from .stream_event_client_call_requested_event_type import (
    StreamEventClientCallRequestedEventType,
)
from .stream_event_complete_event import StreamEventCompleteEvent
from .stream_event_complete_event_type import StreamEventCompleteEventType
from .stream_event_delta_event import StreamEventDeltaEvent
from .stream_event_delta_event_type import StreamEventDeltaEventType
from .stream_event_error_event import StreamEventErrorEvent
from .stream_event_error_event_type import StreamEventErrorEventType
from .stream_event_fallback_event import StreamEventFallbackEvent
from .stream_event_fallback_event_type import StreamEventFallbackEventType
from .stream_event_ping_event import StreamEventPingEvent
from .stream_event_ping_event_type import StreamEventPingEventType
from .stream_event_prompt_state_event import StreamEventPromptStateEvent
from .stream_event_prompt_state_event_type import StreamEventPromptStateEventType
from .stream_event_reconnect_event import StreamEventReconnectEvent
from .stream_event_reconnect_event_type import StreamEventReconnectEventType
from .stream_event_reset_event import StreamEventResetEvent
from .stream_event_reset_event_type import StreamEventResetEventType
from .stream_event_retry_event import StreamEventRetryEvent
from .stream_event_retry_event_type import StreamEventRetryEventType
from .stream_event_status_event import StreamEventStatusEvent
from .stream_event_status_event_type import StreamEventStatusEventType
from .stream_event_thinking_delta_event import StreamEventThinkingDeltaEvent
from .stream_event_thinking_delta_event_type import StreamEventThinkingDeltaEventType
from .stream_event_tool_complete_event import StreamEventToolCompleteEvent
from .stream_event_tool_complete_event_type import StreamEventToolCompleteEventType
from .stream_event_tool_progress_event import StreamEventToolProgressEvent
from .stream_event_tool_progress_event_type import StreamEventToolProgressEventType
from .stream_event_tool_start_event import StreamEventToolStartEvent
from .stream_event_tool_start_event_type import StreamEventToolStartEventType
from .streaming_state import StreamingState
from .stuck_prompt import StuckPrompt
from .suggested_action import SuggestedAction
from .suggested_value import SuggestedValue
from .switch_branch import SwitchBranch
from .teaching_assignment import TeachingAssignment
from .teaching_block import TeachingBlock
from .teaching_class import TeachingClass
from .teaching_class_detail import TeachingClassDetail
from .teaching_extraction import TeachingExtraction
from .teaching_session import TeachingSession
from .thinking_delta_event import ThinkingDeltaEvent
from .timer_fired_event import TimerFiredEvent
from .title_source import TitleSource
from .todo import Todo
from .token import Token
from .token_list import TokenList
from .tool import Tool
from .tool_call import ToolCall
from .tool_call_state import ToolCallState
from .tool_complete_event import ToolCompleteEvent
from .tool_constraints import ToolConstraints
from .tool_context import ToolContext
from .tool_definition import ToolDefinition
from .tool_history_entry import ToolHistoryEntry
from .tool_module import ToolModule
from .tool_module_config_type_0 import ToolModuleConfigType0
from .tool_progress_event import ToolProgressEvent
from .tool_start_event import ToolStartEvent
from .tool_summary import ToolSummary
from .turn_finished_event import TurnFinishedEvent
from .turn_started_event import TurnStartedEvent
from .update_assignment import UpdateAssignment
from .update_budget import UpdateBudget
from .update_class import UpdateClass
from .update_group import UpdateGroup
from .update_session import UpdateSession
from .update_tool import UpdateTool
from .update_user import UpdateUser
from .upload_file_body import UploadFileBody
from .usage import Usage
from .usage_call import UsageCall
from .usage_group import UsageGroup
from .usage_group_by import UsageGroupBy
from .user import User
from .user_context import UserContext
from .user_event_approval_requested_event import UserEventApprovalRequestedEvent
from .user_event_approval_requested_event_type import (
    UserEventApprovalRequestedEventType,
)
from .user_event_approval_resolved_event import UserEventApprovalResolvedEvent
from .user_event_approval_resolved_event_type import UserEventApprovalResolvedEventType
from .user_event_name import UserEventName
from .user_event_session_created_event import UserEventSessionCreatedEvent
from .user_event_session_created_event_type import UserEventSessionCreatedEventType
from .user_event_session_deleted_event import UserEventSessionDeletedEvent
from .user_event_session_deleted_event_type import UserEventSessionDeletedEventType
from .user_event_session_updated_event import UserEventSessionUpdatedEvent
from .user_event_session_updated_event_type import UserEventSessionUpdatedEventType
from .user_event_timer_fired_event import UserEventTimerFiredEvent
from .user_event_timer_fired_event_type import UserEventTimerFiredEventType
from .user_event_turn_finished_event import UserEventTurnFinishedEvent
from .user_event_turn_finished_event_type import UserEventTurnFinishedEventType
from .user_event_turn_started_event import UserEventTurnStartedEvent
from .user_event_turn_started_event_type import UserEventTurnStartedEventType
from .user_event_user_ping_event import UserEventUserPingEvent
from .user_event_user_ping_event_type import UserEventUserPingEventType
from .user_event_user_reconnect_event import UserEventUserReconnectEvent
from .user_event_user_reconnect_event_type import UserEventUserReconnectEventType
from .user_event_user_reset_event import UserEventUserResetEvent
from .user_event_user_reset_event_type import UserEventUserResetEventType
from .user_feed_token import UserFeedToken
from .user_ping_event import UserPingEvent
from .user_reconnect_event import UserReconnectEvent
from .user_reset_event import UserResetEvent
from .user_role import UserRole
from .user_sse_event import UserSseEvent

__all__ = (
    "AcceptedTurn",
    "ActionHandler",
    "ActionResult",
    "AdminFeedback",
    "ApprovalList",
    "ApprovalRequestedEvent",
    "ApprovalRequestedPromptEvent",
    "ApprovalResolvedEvent",
    "ApproveCall",
    "ApproveCallInputType0",
    "AskAnswer",
    "AskRequest",
    "Assignment",
    "AssignmentScope",
    "Attachment",
    "Block",
    "BlockCategory",
    "BlockEvent",
    "BlockGroup",
    "BlockReport",
    "BlockStartEvent",
    "BlockStopEvent",
    "BlockType",
    "BlocksGroupBy",
    "Bound",
    "BreakerStateName",
    "Budget",
    "BudgetPeriod",
    "BudgetSubject",
    "CallError",
    "CancelledEvent",
    "ChatCompletion",
    "ChatCompletionChoice",
    "ChatCompletionChunk",
    "ChatCompletionChunkChoice",
    "ChatCompletionDelta",
    "ChatCompletionMessage",
    "ChatCompletionRequest",
    "ChatCompletionSseEvent",
    "ChatCompletionTokensDetails",
    "ChatCompletionUsage",
    "ChatContentPart",
    "ChatFileData",
    "ChatFunctionCall",
    "ChatFunctionCallDelta",
    "ChatFunctionDef",
    "ChatImageUrl",
    "ChatMessageInput",
    "ChatPromptTokensDetails",
    "ChatResponseFormat",
    "ChatResponsePayload",
    "ChatRole",
    "ChatStreamOptions",
    "ChatTool",
    "ChatToolCall",
    "ChatToolCallDelta",
    "Class",
    "ClassPerson",
    "ClassScope",
    "ClientCallError",
    "ClientCallOutput",
    "ClientCallRequestedEvent",
    "ClientCallText",
    "ClientFunction",
    "ClientFunctionParametersType0",
    "ClientFunctionReturnsType0",
    "Compaction",
    "CompleteEvent",
    "ConfigOverrides",
    "ConversationContext",
    "ConversationMessage",
    "CreateAssignment",
    "CreateBudget",
    "CreateClass",
    "CreateGroup",
    "CreateMessage",
    "CreateSession",
    "CreateToken",
    "CreateTool",
    "CreateUser",
    "CreatedToken",
    "CustomPayload",
    "DeltaEvent",
    "DenyCall",
    "Enrollment",
    "EnrollmentRole",
    "ErrorCode",
    "ErrorEvent",
    "EventName",
    "ExportedConversation",
    "ExportedFunction",
    "ExportedFunctionCall",
    "ExportedFunctionParameters",
    "ExportedMessage",
    "ExportedRole",
    "ExportedTool",
    "ExportedToolCall",
    "ExportedToolKind",
    "Extraction",
    "FallbackEvent",
    "FallbackReason",
    "FeedToken",
    "Feedback",
    "FeedbackByModel",
    "FeedbackByRating",
    "FeedbackByTool",
    "FeedbackMetrics",
    "File",
    "FileKind",
    "FinishedTurn",
    "Function",
    "FunctionList",
    "FunctionMode",
    "FunctionParameters",
    "GiveFeedback",
    "Group",
    "GroupScope",
    "Health",
    "HistorySettings",
    "Hook",
    "HookAction",
    "HookAudit",
    "HookContext",
    "HookExtraction",
    "HookResult",
    "JsonSchemaFormat",
    "MemberRole",
    "Membership",
    "Message",
    "MessageAudit",
    "MessageRole",
    "Model",
    "ModelList",
    "Modifications",
    "ModuleEvent",
    "ModuleInfo",
    "ModuleInfoConfig",
    "ModuleKindName",
    "ModuleList",
    "ModuleOutcome",
    "Note",
    "OnActive",
    "OpenAiError",
    "OpenAiErrorDetail",
    "OpenAiModel",
    "OpenAiModelList",
    "OpenAiResponse",
    "OpenAiResponseError",
    "OpenAiResponseMetadata",
    "OutOfBounds",
    "OutputFormat",
    "OutputFormatSchemaType0",
    "OutputFormatType",
    "PageAdminFeedback",
    "PageAssignment",
    "PageBlockEvent",
    "PageBudget",
    "PageClass",
    "PageEnrollment",
    "PageGroup",
    "PageMembership",
    "PageMessage",
    "PageNote",
    "PageSession",
    "PageTeachingBlock",
    "PageTeachingClass",
    "PageTeachingExtraction",
    "PageTeachingSession",
    "PageTodo",
    "PageTool",
    "PageToolSummary",
    "PageUsageCall",
    "PageUsageGroup",
    "PageUser",
    "PayloadSourceKind",
    "PayloadTypeInfo",
    "PayloadTypeInfoFrontendConfig",
    "PayloadTypeInfoSchema",
    "PayloadTypeList",
    "PingEvent",
    "Problem",
    "Prompt",
    "PromptState",
    "PromptStateEvent",
    "PromptStats",
    "ProviderBreaker",
    "ProviderFailure",
    "ProviderStatus",
    "ProvidersReport",
    "PutEnrollment",
    "PutMember",
    "Rating",
    "Readiness",
    "ReadinessChecks",
    "ReconnectEvent",
    "RegenerateMessage",
    "Replay",
    "ReplayedMessage",
    "RequestContext",
    "ResetEvent",
    "ResponseCreateRequest",
    "ResponseFormatType",
    "ResponseFunctionCall",
    "ResponseFunctionTool",
    "ResponseIncompleteDetails",
    "ResponseInputContentPart",
    "ResponseInputItem",
    "ResponseInputTokensDetails",
    "ResponseMcpCall",
    "ResponseOutputItemResponseFunctionCall",
    "ResponseOutputItemResponseFunctionCallType",
    "ResponseOutputItemResponseMcpCall",
    "ResponseOutputItemResponseMcpCallType",
    "ResponseOutputItemResponseOutputMessage",
    "ResponseOutputItemResponseOutputMessageType",
    "ResponseOutputMessage",
    "ResponseOutputText",
    "ResponseOutputTokensDetails",
    "ResponseReasoning",
    "ResponseSseEvent",
    "ResponseStreamEvent",
    "ResponseText",
    "ResponseTextFormat",
    "ResponseTextFormatParam",
    "ResponseTextParam",
    "ResponseUsage",
    "RetryEvent",
    "RouteDecision",
    "RunAction",
    "SamplingBounds",
    "ScopeContext",
    "ServerActionName",
    "Session",
    "SessionAssignment",
    "SessionAudit",
    "SessionConfig",
    "SessionContext",
    "SessionCreatedEvent",
    "SessionDeletedEvent",
    "SessionMatch",
    "SessionMatches",
    "SessionState",
    "SessionSummary",
    "SessionUpdatedEvent",
    "SkillName",
    "SseEvent",
    "StateCount",
    "StatusEvent",
    "StopReason",
    "StreamEventApprovalRequestedPromptEvent",
    "StreamEventApprovalRequestedPromptEventType",
    "StreamEventBlockStartEvent",
    "StreamEventBlockStartEventType",
    "StreamEventBlockStopEvent",
    "StreamEventBlockStopEventType",
    "StreamEventCancelledEvent",
    "StreamEventCancelledEventType",
    "StreamEventClientCallRequestedEvent",
    "StreamEventClientCallRequestedEventType",
    "StreamEventCompleteEvent",
    "StreamEventCompleteEventType",
    "StreamEventDeltaEvent",
    "StreamEventDeltaEventType",
    "StreamEventErrorEvent",
    "StreamEventErrorEventType",
    "StreamEventFallbackEvent",
    "StreamEventFallbackEventType",
    "StreamEventPingEvent",
    "StreamEventPingEventType",
    "StreamEventPromptStateEvent",
    "StreamEventPromptStateEventType",
    "StreamEventReconnectEvent",
    "StreamEventReconnectEventType",
    "StreamEventResetEvent",
    "StreamEventResetEventType",
    "StreamEventRetryEvent",
    "StreamEventRetryEventType",
    "StreamEventStatusEvent",
    "StreamEventStatusEventType",
    "StreamEventThinkingDeltaEvent",
    "StreamEventThinkingDeltaEventType",
    "StreamEventToolCompleteEvent",
    "StreamEventToolCompleteEventType",
    "StreamEventToolProgressEvent",
    "StreamEventToolProgressEventType",
    "StreamEventToolStartEvent",
    "StreamEventToolStartEventType",
    "StreamingState",
    "StuckPrompt",
    "SuggestedAction",
    "SuggestedValue",
    "SwitchBranch",
    "TeachingAssignment",
    "TeachingBlock",
    "TeachingClass",
    "TeachingClassDetail",
    "TeachingExtraction",
    "TeachingSession",
    "ThinkingDeltaEvent",
    "TimerFiredEvent",
    "TitleSource",
    "Todo",
    "Token",
    "TokenList",
    "Tool",
    "ToolCall",
    "ToolCallState",
    "ToolCompleteEvent",
    "ToolConstraints",
    "ToolContext",
    "ToolDefinition",
    "ToolHistoryEntry",
    "ToolModule",
    "ToolModuleConfigType0",
    "ToolProgressEvent",
    "ToolStartEvent",
    "ToolSummary",
    "TurnFinishedEvent",
    "TurnStartedEvent",
    "UpdateAssignment",
    "UpdateBudget",
    "UpdateClass",
    "UpdateGroup",
    "UpdateSession",
    "UpdateTool",
    "UpdateUser",
    "UploadFileBody",
    "Usage",
    "UsageCall",
    "UsageGroup",
    "UsageGroupBy",
    "User",
    "UserContext",
    "UserEventApprovalRequestedEvent",
    "UserEventApprovalRequestedEventType",
    "UserEventApprovalResolvedEvent",
    "UserEventApprovalResolvedEventType",
    "UserEventName",
    "UserEventSessionCreatedEvent",
    "UserEventSessionCreatedEventType",
    "UserEventSessionDeletedEvent",
    "UserEventSessionDeletedEventType",
    "UserEventSessionUpdatedEvent",
    "UserEventSessionUpdatedEventType",
    "UserEventTimerFiredEvent",
    "UserEventTimerFiredEventType",
    "UserEventTurnFinishedEvent",
    "UserEventTurnFinishedEventType",
    "UserEventTurnStartedEvent",
    "UserEventTurnStartedEventType",
    "UserEventUserPingEvent",
    "UserEventUserPingEventType",
    "UserEventUserReconnectEvent",
    "UserEventUserReconnectEventType",
    "UserEventUserResetEvent",
    "UserEventUserResetEventType",
    "UserFeedToken",
    "UserPingEvent",
    "UserReconnectEvent",
    "UserResetEvent",
    "UserRole",
    "UserSseEvent",
)
