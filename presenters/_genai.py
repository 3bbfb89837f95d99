"""The OpenTelemetry GenAI semantic-convention names ``presenters.otel`` writes.

The conventions are still marked "development" upstream, so every name lives here, in one
place to change when they move.
"""

OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
AGENT_ID = "gen_ai.agent.id"
AGENT_NAME = "gen_ai.agent.name"
CONVERSATION_ID = "gen_ai.conversation.id"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
RESPONSE_ID = "gen_ai.response.id"
FINISH_REASONS = "gen_ai.response.finish_reasons"
TIME_TO_FIRST_CHUNK = "gen_ai.response.time_to_first_chunk"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHE_READ_TOKENS = "gen_ai.usage.cache_read.input_tokens"
CACHE_WRITE_TOKENS = "gen_ai.usage.cache_creation.input_tokens"
REASONING_TOKENS = "gen_ai.usage.reasoning.output_tokens"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
TOOL_RESULT_PART_KINDS = "agentcore.tool.call.result.part_kinds"
TOOL_RESULT_PART_BYTES = "agentcore.tool.call.result.part_bytes"
"""No convention names a result's parts yet: their kinds and sizes, never their bytes."""
OUTPUT_MESSAGES = "gen_ai.output.messages"
INPUT_MESSAGES = "gen_ai.input.messages"
TOKEN_TYPE = "gen_ai.token.type"
ERROR_TYPE = "error.type"

INVOKE_AGENT = "invoke_agent"
CHAT = "chat"
EXECUTE_TOOL = "execute_tool"

DURATION_METRIC = "gen_ai.client.operation.duration"
TOKEN_METRIC = "gen_ai.client.token.usage"

CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
