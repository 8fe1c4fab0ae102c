/**
 * The local GitHub REST API double for tests (see `server.ts`).
 *
 * ```ts
 * const github = await startGitHubServer();            // repository octo-org/widgets exists
 * github.state.addFile({ ref: "main", path: ".github/evidence-gate.yml", content: "…" });
 * const octokit = createOctokit({ token: "t", baseUrl: github.url, timing: TEST_TIMING });
 * // … or GITHUB_API_URL=github.url for the bundled action
 * github.assertNoViolations();                          // in every test that talks to it
 * await github.close();
 * ```
 */
import type { OctokitTiming } from "../../../src/github/octokit.js";

export type { AppAuthOptions, IssuedToken } from "./app-auth.js";
export { validateComponent } from "./contract.js";
export type { AppFixture, ArtifactFixture, StoredCheckRun } from "./fixtures.js";
export { GITHUB_ACTIONS_APP } from "./fixtures.js";
export { CHECK_RUN_OUTPUT_MAX_BYTES } from "./github-rules.js";
export type {
  BlobRequest,
  FaultSpec,
  GitHubServer,
  GitHubServerOptions,
  RecordedCall,
  Violation,
} from "./server.js";
export { DEFAULT_REPOSITORY, startGitHubServer } from "./server.js";
export type {
  AddArtifactInput,
  GitHubServerState,
  StoredDispatch,
  WorkflowFixture,
  WorkflowRunFixture,
} from "./state.js";
export type { DeliverInput, DeliveryRecord, WebhookTarget } from "./webhook-deliveries.js";
export { signPayload } from "./webhook-deliveries.js";

/** Retry/rate-limit waits in milliseconds and no write spacing: attempts are asserted, never time. */
export const TEST_TIMING: OctokitTiming = { retryBaseMs: 1, rateLimitUnitMs: 1, spaceWrites: false };
