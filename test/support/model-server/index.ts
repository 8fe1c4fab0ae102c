/** The scripted model server (docs/scripted-model-server.md). */
export { type AssistantMessage, assistantMessage, errorBody, sseEvents } from "./anthropic-wire.js";
export {
  claudeEnvFor,
  codexConfigFor,
  codexEnvFor,
  SCRIPTED_API_KEY,
  SCRIPTED_CODEX_MODEL,
  SCRIPTED_CODEX_PROVIDER,
} from "./env.js";
export {
  type AdvertisedToolKind,
  advertisedTools,
  isModelOutputItem,
  responsesRealTextOf,
  selectResponsesTurn,
} from "./openai-select.js";
export {
  type OutputItem,
  outputItems,
  type ResponsesUsage,
  responsesErrorBody,
  responsesSseEvents,
  type ScriptedResponse,
  scriptedResponse,
} from "./openai-wire.js";
export {
  DEFAULT_USAGE,
  MAX_DELAY_MS,
  type ModelScript,
  ModelScriptError,
  parseModelScript,
  type ScriptedConversation,
  type ScriptedError,
  type ScriptedToolCall,
  type ScriptedTurn,
  type ScriptedUsage,
  type ScriptValidation,
  validateModelScript,
} from "./script.js";
export { realTextOf, selectTurn, type TurnSelection, turnFor } from "./select.js";
export {
  type ModelServer,
  type ModelServerOptions,
  type RecordedRequest,
  startModelServer,
  type WireApi,
} from "./server.js";
