/**
 * The lookup from a runtime's name (`state.json`'s `runtime`, the `runtime` input, `--runtime`) to its
 * {@link ModelRuntime}: the one place a name becomes a runtime (issue 24 item 1).
 */
import type { Runtime } from "../policy/disclosure.js";
import { CLAUDE_RUNTIME } from "./claude-runtime.js";
import { CODEX_RUNTIME } from "./codex-runtime.js";
import type { ModelRuntime } from "./model-runtime.js";

const RUNTIMES: Readonly<Record<Runtime, ModelRuntime>> = { claude: CLAUDE_RUNTIME, codex: CODEX_RUNTIME };

/** The runtime named `name`; `undefined` (a caller's unset option) is `claude`, the default runtime. */
export function runtimeFor(name: Runtime | undefined): ModelRuntime {
  return RUNTIMES[name ?? "claude"];
}
