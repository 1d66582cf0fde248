export { COMPACTION_PREFIX, compactionMessage, compactionSummary } from "./compaction";
export {
  canonicalJson,
  type NormalizedItem,
  normalizeRequestInput,
  requestDigest,
  toolsDigest,
} from "./digest";
export {
  LlmConfigError,
  LlmError,
  type LlmErrorCode,
  type LlmErrorFields,
  llmErrorCodes,
} from "./errors";
export {
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  IdleWatchdog,
  streamIdleTimeoutFromEnv,
} from "./idle-timeout";
export type {
  LlmOutputItem,
  LlmProvider,
  LlmRequest,
  LlmStreamOptions,
  LlmStreamPart,
  ResponsePart,
  TextDeltaPart,
  ToolCallDeltaPart,
  ToolDefinition,
} from "./llm-provider";
export {
  type ModelId,
  type ProviderEnv,
  type ProviderId,
  parseModelId,
  providerIds,
  type ResolvedProvider,
  type ResolveProviderOptions,
  resolveProvider,
} from "./model-id";
export { createOpenAIChatProvider, type OpenAIChatProviderOptions } from "./openai-chat";
export { type BaseUrlParts, type OpenAIProviderOptions, splitBaseUrl } from "./openai-client";
export { redact } from "./openai-errors";
export { createOpenAIResponsesProvider } from "./openai-responses";
export {
  type ChatFunctionTool,
  type ChatMessage,
  type ChatToolCall,
  llmRequestFromChatBody,
  toChatMessages,
  toChatTools,
} from "./wire-chat";
export {
  llmRequestFromResponsesBody,
  type ResponsesFunctionTool,
  type ResponsesInputItem,
  toResponsesInput,
  toResponsesTools,
} from "./wire-responses";
