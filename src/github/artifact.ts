/**
 * A run's workflow artifacts (SPEC §4, §6, §10, §11), uploaded through `@actions/artifact`:
 *
 * - `evidence-gate-run-<run id>`: the run directory (`state.json`, `events.jsonl`, `graph.json`, node
 *   outputs, `patch.diff` when the nodes changed files, `ledger.json`);
 * - `<check-name>-ledger`: the ledger JSON (on every finished run, not only forks).
 *
 * What is uploaded is a copy in which every known secret and every token shape is replaced by `***` (SPEC §9:
 * secrets are redacted from everything sent through the API, artifacts included; {@link redact}).
 * A file that holds neither is uploaded byte for byte. Where the runner's artifact service is not
 * reachable — `ACTIONS_RUNTIME_TOKEN` / `ACTIONS_RESULTS_URL` unset (a local run, a test without the
 * results service) — nothing is uploaded and the caller is told once, with the reason, to print as a
 * notice. A failed upload is reported, never thrown: the check run carries the verdict either way.
 */
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { createRedactor } from "../core/redact.js";
import { unreachable } from "../core/unreachable.js";
import { RUN_STATE_DIGEST_FILE, type RunStateDigests, runStateDigestFileText } from "./run-state-digest.js";

/** The part of `@actions/artifact`'s client this module calls (a seam for tests). */
export interface ArtifactUploader {
  uploadArtifact(
    name: string,
    files: string[],
    rootDirectory: string,
    options?: { retentionDays?: number },
  ): Promise<{ id?: number; size?: number; digest?: string }>;
}

export type ArtifactOutcome =
  | {
      readonly kind: "uploaded";
      readonly name: string;
      readonly id: number | null;
      readonly size: number | null;
      readonly files: number;
    }
  | { readonly kind: "skipped"; readonly name: string; readonly reason: string }
  | { readonly kind: "failed"; readonly name: string; readonly message: string };

export interface RunArtifacts {
  /** `evidence-gate-run-<run id>`: the run directory. */
  readonly runDirectory: ArtifactOutcome;
  /** `<check-name>-ledger`: the ledger JSON. */
  readonly ledger: ArtifactOutcome;
}

export interface UploadRunArtifactsOptions {
  readonly runId: string;
  /** The run directory (uploaded whole). */
  readonly runDir: string;
  /** The ledger JSON file. */
  readonly ledgerPath: string;
  /** The check run's name (input `check-name`); the ledger artifact is `<check-name>-ledger`. */
  readonly checkName: string;
  /**
   * The digests of the run state the ledger rests on: written beside `ledger.json` in the ledger artifact
   * (`RUN_STATE_DIGEST_FILE`), for the App's check run (`report-to: bot`). Absent: the ledger alone.
   */
  readonly digests?: RunStateDigests;
  /** Where the redacted copies are staged (e.g. `RUNNER_TEMP`). */
  readonly stagingDir: string;
  /** The runner's environment (default `process.env`): the artifact service's token and URL. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Values replaced by `***` in every uploaded file (token shapes are replaced whether or not any is given). */
  readonly secrets: readonly string[];
  /** Told once when the upload is skipped (the action passes `core.notice`). */
  readonly notice: (message: string) => void;
  /** Told for each failed upload (the action passes `core.warning`). */
  readonly warn: (message: string) => void;
  /** Default: `@actions/artifact`'s client. */
  readonly client?: ArtifactUploader;
}

/** Characters `@actions/artifact` refuses in an artifact name (NTFS limits), replaced by `-`. */
const INVALID_NAME_CHARACTERS = /["':<>|*?\r\n\\/]/g;

/** `evidence-gate-run-<run id>` (SPEC §11). */
export function runArtifactName(runId: string): string {
  return safeArtifactName(`evidence-gate-run-${runId}`);
}

/** `<check-name>-ledger` (SPEC §10, §11), with characters the artifact service refuses replaced by `-`. */
export function ledgerArtifactName(checkName: string): string {
  return safeArtifactName(`${checkName}-ledger`);
}

/**
 * An uploaded artifact's page, `{GITHUB_SERVER_URL}/{GITHUB_REPOSITORY}/actions/runs/{GITHUB_RUN_ID}/artifacts/{id}`
 * (the form `actions/upload-artifact` gives as `artifact-url`), or `undefined` when a variable is missing.
 */
export function artifactPageUrl(
  env: Readonly<Record<string, string | undefined>>,
  id: number,
): string | undefined {
  const server = (env.GITHUB_SERVER_URL ?? "https://github.com").trim().replace(/\/+$/, "");
  const repository = env.GITHUB_REPOSITORY?.trim();
  const runId = env.GITHUB_RUN_ID?.trim();
  if (!repository || !runId || !/^\d+$/.test(runId)) return undefined;
  return `${server}/${repository}/actions/runs/${runId}/artifacts/${id}`;
}

function safeArtifactName(name: string): string {
  return name.replace(INVALID_NAME_CHARACTERS, "-");
}

/**
 * Why the artifact service cannot be used here, or `null` when it can. The runner gives a JavaScript
 * action `ACTIONS_RUNTIME_TOKEN` and `ACTIONS_RESULTS_URL`; a local run has neither.
 */
export function artifactServiceUnavailable(env: Readonly<Record<string, string | undefined>>): string | null {
  const missing = ["ACTIONS_RUNTIME_TOKEN", "ACTIONS_RESULTS_URL"].filter(
    (name) => (env[name] ?? "").trim() === "",
  );
  if (missing.length === 0) return null;
  return `${missing.join(" and ")} ${missing.length === 1 ? "is" : "are"} not set (not running in GitHub Actions, or the artifact service is not available to this step)`;
}

/** Uploads both artifacts, or skips both with one notice. Never throws. */
export async function uploadRunArtifacts(options: UploadRunArtifactsOptions): Promise<RunArtifacts> {
  const runName = runArtifactName(options.runId);
  const ledgerName = ledgerArtifactName(options.checkName);
  const unavailable = artifactServiceUnavailable(options.env ?? process.env);
  if (unavailable !== null) {
    options.notice(
      `evidence-gate: artifact upload skipped: ${unavailable}. Artifacts ${runName} and ${ledgerName} were not uploaded; the run directory stays at ${options.runDir}.`,
    );
    return {
      runDirectory: { kind: "skipped", name: runName, reason: unavailable },
      ledger: { kind: "skipped", name: ledgerName, reason: unavailable },
    };
  }
  // Loaded only here (issue 16, B2): @actions/artifact and its Azure storage client are a fifth of the
  // action's engine bundle, needed once at the end of a run; the action's start does not parse them.
  const { DefaultArtifactClient, GHESNotSupportedError } = await import("@actions/artifact");
  const client = options.client ?? new DefaultArtifactClient();
  const unsupported = (error: unknown): boolean => error instanceof GHESNotSupportedError;
  let staging: string | null = null;
  try {
    staging = mkdtempSync(join(options.stagingDir, "evidence-gate-artifacts-"));
    const runCopy = join(staging, "run");
    const runFiles = copyRedacted(options.runDir, runCopy, options.secrets);
    const ledgerCopy = join(staging, "ledger");
    mkdirSync(ledgerCopy, { recursive: true });
    const ledgerFile = join(ledgerCopy, basename(options.ledgerPath));
    writeFileSync(ledgerFile, fileRedactor(options.secrets)(readFileSync(options.ledgerPath)));
    const ledgerFiles = [ledgerFile];
    if (options.digests !== undefined) {
      const digestFile = join(ledgerCopy, RUN_STATE_DIGEST_FILE);
      writeFileSync(digestFile, runStateDigestFileText(options.runId, options.digests));
      ledgerFiles.push(digestFile);
    }
    const runDirectory = await upload(client, runName, runFiles, runCopy, options.warn, unsupported);
    const ledger = await upload(client, ledgerName, ledgerFiles, ledgerCopy, options.warn, unsupported);
    return { runDirectory, ledger };
  } catch (error) {
    // Staging the redacted copies failed (disk full, unreadable file): nothing was uploaded.
    const message = `could not prepare the artifacts: ${error instanceof Error ? error.message : String(error)}`;
    options.warn(`evidence-gate: ${message}`);
    return {
      runDirectory: { kind: "failed", name: runName, message },
      ledger: { kind: "failed", name: ledgerName, message },
    };
  } finally {
    if (staging !== null) rmSync(staging, { recursive: true, force: true });
  }
}

async function upload(
  client: ArtifactUploader,
  name: string,
  files: string[],
  root: string,
  warn: (message: string) => void,
  /** Whether the error is @actions/artifact's `GHESNotSupportedError`. */
  unsupported: (error: unknown) => boolean,
): Promise<ArtifactOutcome> {
  try {
    const result = await client.uploadArtifact(name, files, root);
    return { kind: "uploaded", name, id: result.id ?? null, size: result.size ?? null, files: files.length };
  } catch (error) {
    if (unsupported(error)) {
      return {
        kind: "skipped",
        name,
        reason: "GitHub Enterprise Server does not support @actions/artifact v2+",
      };
    }
    const message = error instanceof Error ? error.message : String(error);
    warn(`evidence-gate: could not upload artifact ${name}: ${message}`);
    return { kind: "failed", name, message };
  }
}

/** Copies every file under `from` to `to` with secrets redacted; returns the copies' paths. */
function copyRedacted(from: string, to: string, secrets: readonly string[]): string[] {
  const copies: string[] = [];
  const redactFile = fileRedactor(secrets);
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const source = join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(source);
        continue;
      }
      if (!entry.isFile()) continue;
      const target = join(to, relative(from, source));
      mkdirSync(dirname(target), { recursive: true });
      const bytes = readFileSync(source);
      const redacted = redactFile(bytes);
      if (redacted === bytes) copyFileSync(source, target);
      else writeFileSync(target, redacted);
      copies.push(target);
    }
  };
  walk(from);
  return copies;
}

/**
 * `bytes` with every occurrence of each secret replaced by `***`, as raw UTF-8 and as it appears inside
 * a JSON string (the ledger and state files are JSON) — secrets shorter than 4 characters are left alone,
 * so a one-letter "secret" does not shred every file — and then, through the run's redactor
 * (`createRedactor(secrets).bytes`), the encoded forms of secrets of 12 characters or more and every token
 * shape. Bytes that hold none of them are returned as the same buffer.
 */
export function redact(bytes: Buffer, secrets: readonly string[]): Buffer {
  return fileRedactor(secrets)(bytes);
}

/** {@link redact} for many files: the secrets' encoded forms are computed once. */
function fileRedactor(secrets: readonly string[]): (bytes: Buffer) => Buffer {
  const redactor = createRedactor(secrets);
  return (bytes) => redactor.bytes(redactKnownValues(bytes, secrets));
}

function redactKnownValues(bytes: Buffer, secrets: readonly string[]): Buffer {
  const needles = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    needles.add(secret);
    needles.add(JSON.stringify(secret).slice(1, -1));
  }
  let out = bytes;
  for (const needle of needles) out = replaceAll(out, Buffer.from(needle, "utf8"), Buffer.from("***"));
  return out;
}

function replaceAll(haystack: Buffer, needle: Buffer, replacement: Buffer): Buffer {
  let at = haystack.indexOf(needle);
  if (at === -1) return haystack;
  const parts: Buffer[] = [];
  let from = 0;
  while (at !== -1) {
    parts.push(haystack.subarray(from, at), replacement);
    from = at + needle.length;
    at = haystack.indexOf(needle, from);
  }
  parts.push(haystack.subarray(from));
  return Buffer.concat(parts);
}

/** One Markdown section naming both artifacts and what happened to each, for the summaries. */
export function artifactsMarkdown(artifacts: RunArtifacts, runDir: string): string {
  const line = (outcome: ArtifactOutcome, what: string): string => {
    const name = `\`${outcome.name}\``;
    switch (outcome.kind) {
      case "uploaded":
        return `- ${name} (${what}): uploaded to this workflow run's artifacts${outcome.size === null ? "" : `, ${outcome.size} bytes`}.`;
      case "skipped":
        return `- ${name} (${what}): not uploaded — ${outcome.reason}.`;
      case "failed":
        return `- ${name} (${what}): **upload failed** — ${outcome.message.split("\n")[0]}`;
      default:
        return unreachable(outcome);
    }
  };
  const lines = [
    "### Artifacts",
    "",
    line(artifacts.runDirectory, "the run directory: state, events, graph, node outputs, patch.diff"),
    line(artifacts.ledger, "the ledger JSON"),
  ];
  if (artifacts.runDirectory.kind !== "uploaded")
    lines.push("", `The run directory is on the runner at \`${runDir}\`.`);
  return lines.join("\n");
}

/**
 * Whether `@actions/artifact` refuses the server at `serverUrl` (`GITHUB_SERVER_URL`): GitHub Enterprise
 * Server, whose artifact service the package's v2+ client does not support. The same rule as the package's
 * own `isGhes()` (`@actions/artifact` `internal/shared/config`): any host but `github.com`, a `*.ghe.com`
 * tenant (GitHub Enterprise Cloud with data residency) or a `*.localhost` host (GitHub's own development
 * setups, and this project's test servers).
 */
export function artifactsUnsupportedOn(serverUrl: string): boolean {
  let host: string;
  try {
    host = new URL(serverUrl).hostname.toUpperCase();
  } catch {
    return false;
  }
  return host !== "GITHUB.COM" && !host.endsWith(".GHE.COM") && !host.endsWith(".LOCALHOST");
}

/**
 * Why the action cannot work as asked on GitHub Enterprise Server, or `null` (issue 26): `mode: resume`
 * downloads the run's artifact, `mode: report` and the App (`report-to: bot`) the ledger artifact, and
 * `@actions/artifact` refuses GHES ({@link artifactsUnsupportedOn}). `uses` names what was asked
 * (`"mode resume"`, `"report-to: bot"`).
 */
export function artifactModeProblem(serverUrl: string | undefined, uses: string): string | null {
  const server = (serverUrl ?? "https://github.com").trim().replace(/\/+$/, "");
  if (!artifactsUnsupportedOn(server)) return null;
  return `${uses} needs workflow artifacts, which @actions/artifact does not support on GitHub Enterprise Server (GITHUB_SERVER_URL ${server}): mode resume, mode report and report-to: bot cannot work there. Run mode auto, run, verify or lint (the job summary carries the ledger), or run on github.com`;
}
