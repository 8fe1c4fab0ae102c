/**
 * The base ref's agent configuration (SPEC §9; which paths: `src/policy/agent-config-paths.ts`), read
 * with git from the checkout when the base commit is there (fetched from `origin` first when it is not —
 * the token reaches that one `git fetch` through `GIT_CONFIG_*` variables of that process only, never a
 * file), else through the API: one recursive tree listing
 * (`GET /repos/{owner}/{repo}/git/trees/{sha}?recursive=1`) and one blob read per file
 * (`GET /repos/{owner}/{repo}/git/blobs/{sha}`; https://docs.github.com/rest/git/trees,
 * https://docs.github.com/rest/git/blobs). Bounded: at most {@link MAX_BASE_CONFIG_FILES} files of at most
 * {@link MAX_BASE_CONFIG_FILE_BYTES} each; over it, or a truncated tree listing, is an error (the run must
 * not start with a configuration it could not read whole).
 */

import { isAgentConfigPath } from "../policy/agent-config-paths.js";
import { git, gitStream } from "../proc/git.js";
import { statusOf } from "./base-ref-file.js";
import type { GateOctokit } from "./octokit.js";

export const MAX_BASE_CONFIG_FILES = 2000;
export const MAX_BASE_CONFIG_FILE_BYTES = 5 * 1024 * 1024;

/** One agent-configuration file of the base commit. `symlink`'s bytes are the link's target. */
export interface AgentConfigEntry {
  readonly path: string;
  readonly kind: "file" | "executable" | "symlink";
  readonly bytes: Buffer;
}

export interface BaseAgentConfig {
  /** How the files were read: the checkout's objects, after fetching the base commit, or the API. */
  readonly via: "git" | "git-fetch" | "api";
  readonly entries: readonly AgentConfigEntry[];
  /** Submodule entries (gitlinks) under a configuration path: nothing can be put there. */
  readonly skipped: readonly string[];
  /** Why git was not used, when the API was (for the log). */
  readonly gitNote?: string;
}

/** The base's configuration could not be read (git and API both failed, or over the bounds). */
export class BaseAgentConfigError extends Error {
  override readonly name = "BaseAgentConfigError";
  constructor(
    message: string,
    /** The API's HTTP status, `null` when not an API answer. */
    readonly status: number | null,
  ) {
    super(message);
  }
}

export interface ReadBaseAgentConfigOptions {
  /** The checkout's top directory. */
  readonly root: string;
  /** `pull_request.base.sha`. */
  readonly baseSha: string;
  readonly gitContext: {
    readonly baseEnv: Readonly<Record<string, string | undefined>>;
    readonly knownSecrets: readonly string[];
  };
  /** The token for the one `git fetch` of the base commit (omit: no fetch). */
  readonly fetchToken?: string;
  readonly api: { readonly octokit: GateOctokit; readonly owner: string; readonly repo: string };
}

interface TreeEntry {
  readonly mode: string;
  readonly type: string;
  readonly oid: string;
  readonly path: string;
}

const kindOf = (mode: string): AgentConfigEntry["kind"] | null =>
  mode === "100644" ? "file" : mode === "100755" ? "executable" : mode === "120000" ? "symlink" : null;

/**
 * Reads the base commit's agent configuration.
 * @throws {BaseAgentConfigError} when neither git nor the API can give it whole.
 */
export async function readBaseAgentConfig(o: ReadBaseAgentConfigOptions): Promise<BaseAgentConfig> {
  let gitNote: string;
  try {
    let via: "git" | "git-fetch" = "git";
    if (!(await hasCommit(o))) {
      const fetched = await fetchBaseCommit(o);
      if (fetched !== null) throw new Error(fetched);
      via = "git-fetch";
    }
    return { via, ...(await fromGit(o)) };
  } catch (error) {
    if (error instanceof BaseAgentConfigError) throw error;
    gitNote = error instanceof Error ? error.message : String(error);
  }
  return { via: "api", ...(await fromApi(o)), gitNote };
}

const gitOptions = (o: ReadBaseAgentConfigOptions, set?: Record<string, string>) => ({
  cwd: o.root,
  baseEnv: o.gitContext.baseEnv,
  knownSecrets: o.gitContext.knownSecrets,
  set: { GIT_OPTIONAL_LOCKS: "0", ...set },
});

async function hasCommit(o: ReadBaseAgentConfigOptions): Promise<boolean> {
  try {
    await git(["cat-file", "-e", `${o.baseSha}^{commit}`], gitOptions(o));
    return true;
  } catch {
    return false;
  }
}

/** Fetches the base commit from `origin`; returns why it could not, or `null`. */
async function fetchBaseCommit(o: ReadBaseAgentConfigOptions): Promise<string | null> {
  let url: string;
  try {
    url = await git(["remote", "get-url", "origin"], gitOptions(o));
  } catch {
    return `the base commit ${o.baseSha} is not in the checkout and it has no origin remote to fetch it from`;
  }
  let shallow = false;
  try {
    shallow = (await git(["rev-parse", "--is-shallow-repository"], gitOptions(o))) === "true";
  } catch {
    // An old git: treat as a full clone (no --depth, which would make a full clone shallow).
  }
  // actions/checkout may have persisted a credential (http.<url>.extraheader); a second Authorization
  // header would be refused, so ours is added only when there is none.
  let persisted = false;
  try {
    persisted = (await git(["config", "--get-regexp", "^http\\..*extraheader$"], gitOptions(o))) !== "";
  } catch {
    persisted = false; // exit 1: no such key
  }
  const set: Record<string, string> = {};
  if (o.fetchToken !== undefined && o.fetchToken !== "" && !persisted && /^https:\/\//i.test(url)) {
    const basic = Buffer.from(`x-access-token:${o.fetchToken}`).toString("base64");
    Object.assign(set, {
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "http.extraheader",
      GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${basic}`,
    });
  }
  try {
    await git(
      [
        "fetch",
        "--no-tags",
        "--no-recurse-submodules",
        "--no-write-fetch-head",
        ...(shallow ? ["--depth=1"] : []),
        "origin",
        o.baseSha,
      ],
      { ...gitOptions(o, set), timeoutMs: 120_000 },
    );
    return null;
  } catch (error) {
    return `fetching the base commit ${o.baseSha} from origin failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

async function gitBytes(o: ReadBaseAgentConfigOptions, args: readonly string[]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await gitStream(args, { ...gitOptions(o), onStdout: (chunk) => chunks.push(chunk) });
  return Buffer.concat(chunks);
}

async function fromGit(o: ReadBaseAgentConfigOptions): Promise<Omit<BaseAgentConfig, "via">> {
  const listing = (await gitBytes(o, ["ls-tree", "-r", "-z", "--full-tree", o.baseSha]))
    .toString("utf8")
    .split("\0")
    .filter((record) => record !== "");
  const tree: TreeEntry[] = [];
  for (const record of listing) {
    const tab = record.indexOf("\t");
    const path = record.slice(tab + 1);
    if (!isAgentConfigPath(path)) continue;
    const [mode = "", type = "", oid = ""] = record.slice(0, tab).split(" ");
    tree.push({ mode, type, oid, path });
  }
  return collect(tree, (entry) => gitBytes(o, ["cat-file", "blob", entry.oid]));
}

async function fromApi(o: ReadBaseAgentConfigOptions): Promise<Omit<BaseAgentConfig, "via">> {
  const { octokit, owner, repo } = o.api;
  let data: { truncated: boolean; tree: { path?: string; mode?: string; type?: string; sha?: string }[] };
  try {
    data = (await octokit.rest.git.getTree({ owner, repo, tree_sha: o.baseSha, recursive: "1" })).data;
  } catch (error) {
    throw apiError(o, "list the base commit's files", error);
  }
  if (data.truncated) {
    throw new BaseAgentConfigError(
      `the base commit ${o.baseSha} has more files than the API lists in one tree, and it is not in the checkout: check out with enough history for the base commit (actions/checkout fetch-depth: 0), so its agent configuration can be read with git.`,
      null,
    );
  }
  const tree = data.tree.flatMap((e) =>
    e.path !== undefined && isAgentConfigPath(e.path)
      ? [{ mode: e.mode ?? "", type: e.type ?? "", oid: e.sha ?? "", path: e.path }]
      : [],
  );
  return collect(tree, async (entry) => {
    try {
      const blob = (await octokit.rest.git.getBlob({ owner, repo, file_sha: entry.oid })).data;
      return Buffer.from(blob.content.replace(/\s+/g, ""), blob.encoding === "base64" ? "base64" : "utf8");
    } catch (error) {
      throw apiError(o, `read ${entry.path}`, error);
    }
  });
}

function apiError(o: ReadBaseAgentConfigOptions, what: string, error: unknown): BaseAgentConfigError {
  const status = statusOf(error);
  const permission =
    status === 401 || status === 403 || status === 404 ? " The workflow's token needs `contents: read`." : "";
  return new BaseAgentConfigError(
    `could not ${what} at the base commit ${o.baseSha} through the API (${status === null ? "no answer" : `HTTP ${status}`}: ${error instanceof Error ? error.message : String(error)}).${permission}`,
    status,
  );
}

async function collect(
  tree: readonly TreeEntry[],
  read: (entry: TreeEntry) => Promise<Buffer>,
): Promise<Omit<BaseAgentConfig, "via">> {
  const entries: AgentConfigEntry[] = [];
  const skipped: string[] = [];
  for (const entry of tree) {
    const kind = entry.type === "blob" ? kindOf(entry.mode) : null;
    if (kind === null) {
      if (entry.type !== "tree") skipped.push(entry.path);
      continue;
    }
    if (entries.length >= MAX_BASE_CONFIG_FILES) {
      throw new BaseAgentConfigError(
        `the base commit holds more than ${MAX_BASE_CONFIG_FILES} agent-configuration files; evidence-gate does not restore that many.`,
        null,
      );
    }
    const bytes = await read(entry);
    if (bytes.length > MAX_BASE_CONFIG_FILE_BYTES) {
      throw new BaseAgentConfigError(
        `${entry.path} on the base commit is ${bytes.length} bytes; an agent-configuration file may be at most ${MAX_BASE_CONFIG_FILE_BYTES} bytes.`,
        null,
      );
    }
    entries.push({ path: entry.path, kind, bytes });
  }
  return { entries, skipped };
}
