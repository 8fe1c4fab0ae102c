/** The scripted model server (docs/scripted-model-server.md). */
export { type AssistantMessage, assistantMessage, errorBody, sseEvents } from "./anthropic-wire.js";
export { claudeEnvFor, SCRIPTED_API_KEY } from "./env.js";
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
export { realTextOf, selectTurn, type TurnSelection } from "./select.js";
export {
  type ModelServer,
  type ModelServerOptions,
  type RecordedRequest,
  startModelServer,
} from "./server.js";
