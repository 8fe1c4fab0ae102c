#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  createRedactor,
  unreachable
} from "./cli-chunk-Q4DFSTE5.js";

// src/local-run/writable-paths.ts
import {
  accessSync as accessSync2,
  closeSync,
  constants as constants2,
  mkdirSync,
  openSync,
  rmdirSync,
  statSync as statSync2,
  unlinkSync
} from "node:fs";
import { dirname, isAbsolute as isAbsolute3, join as join2, relative as relative2, resolve as resolve2, sep } from "node:path";

// src/proc/child-env.ts
var ALWAYS_DROPPED_NAMES = /* @__PURE__ */ new Set([
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "GITHUB_ENV",
  "GITHUB_OUTPUT",
  "GITHUB_PATH",
  "GITHUB_STATE",
  "GITHUB_STEP_SUMMARY"
]);
var CLAUDE_PROVIDER = [/^ANTHROPIC_/, /^CLAUDE_CODE_/, /^CLAUDE_CONFIG_DIR$/];
var CODEX_PROVIDER = [/^OPENAI_/, /^CODEX_/];
var SECRET_WORDS = /* @__PURE__ */ new Set([
  "TOKEN",
  "TOKENS",
  "SECRET",
  "SECRETS",
  "PASSWORD",
  "PASSWORDS",
  "PASSWD",
  "PASSPHRASE",
  "CREDENTIAL",
  "CREDENTIALS",
  "CREDS",
  "APIKEY",
  "APITOKEN",
  "AUTHTOKEN",
  "ACCESSTOKEN",
  "ACCESSKEY",
  "SECRETKEY",
  "PRIVATEKEY"
]);
var SECRET_LAST_WORDS = /* @__PURE__ */ new Set(["KEY", "KEYS", "AUTH", "PAT", "PASS"]);
var CLOUD_CREDENTIALS = [/^AWS_/, /^AZURE_/, /^CLOUDSDK_/, /^DOCKER_AUTH_CONFIG$/];
var INJECTION_VECTORS = /* @__PURE__ */ new Set([
  "NODE_OPTIONS",
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "LD_AUDIT",
  "DYLD_INSERT_LIBRARIES",
  "DYLD_LIBRARY_PATH",
  "BASH_ENV",
  "ENV",
  "PROMPT_COMMAND",
  "PYTHONSTARTUP",
  "PERL5OPT",
  "RUBYOPT",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_PROXY_COMMAND",
  "GIT_EXTERNAL_DIFF",
  "RUNNER_DEBUG"
]);
function matchesAny(name, patterns) {
  return patterns.some((p) => p.test(name));
}
function isSecretLikeName(name) {
  const upper = name.toUpperCase();
  if (matchesAny(upper, CLOUD_CREDENTIALS)) return true;
  const words = upper.split(/[^A-Z0-9]+/).filter((w) => w !== "");
  if (words.some((w) => SECRET_WORDS.has(w))) return true;
  const last = words.at(-1);
  return last !== void 0 && SECRET_LAST_WORDS.has(last);
}
function neverPassableReason(name) {
  const upper = name.toUpperCase();
  if (upper.startsWith("INPUT_")) return "it is an action input (inputs carry the action's secrets)";
  if (upper === "GITHUB_TOKEN" || upper === "GH_TOKEN")
    return "it is the GitHub token, which never reaches PR code";
  if (ALWAYS_DROPPED_NAMES.has(upper))
    return "it is a file-command path (PR code could forge the job's outputs, environment or summary)";
  if (upper.startsWith("ACTIONS_")) return "it is a runner service token, URL or debug switch";
  if (matchesAny(upper, [...CLAUDE_PROVIDER, ...CODEX_PROVIDER]))
    return "it is a model credential or provider setting, which never reaches PR code";
  return null;
}
function switchedOn(base, name) {
  const value = base[name];
  return value !== void 0 && value !== "" && value !== "0" && value.toLowerCase() !== "false";
}
function ownProvider(upper, runtime, base) {
  if (runtime === "codex") return matchesAny(upper, CODEX_PROVIDER);
  if (matchesAny(upper, CLAUDE_PROVIDER)) return true;
  if (switchedOn(base, "CLAUDE_CODE_USE_BEDROCK") && upper.startsWith("AWS_")) return true;
  if (switchedOn(base, "CLAUDE_CODE_USE_VERTEX") && (upper === "GOOGLE_APPLICATION_CREDENTIALS" || upper.startsWith("CLOUDSDK_")))
    return true;
  return switchedOn(base, "CLAUDE_CODE_USE_FOUNDRY") && upper.startsWith("AZURE_");
}
function dropReason(name, child, base) {
  const upper = name.toUpperCase();
  if (upper.startsWith("INPUT_")) return "action input";
  if (ALWAYS_DROPPED_NAMES.has(upper)) return "runner token or file command";
  if (upper.startsWith("ACTIONS_")) return "runner service token or URL";
  switch (child.kind) {
    case "model":
      if (ownProvider(upper, child.runtime, base)) return null;
      if (matchesAny(upper, [...CLAUDE_PROVIDER, ...CODEX_PROVIDER]))
        return "other runtime's provider setting";
      break;
    case "verify":
      if (upper === "SSH_AUTH_SOCK") return "SSH agent";
      if (matchesAny(upper, [...CLAUDE_PROVIDER, ...CODEX_PROVIDER])) return "model credential or provider";
      break;
    case "git":
      if (matchesAny(upper, [...CLAUDE_PROVIDER, ...CODEX_PROVIDER])) return "model credential or provider";
      break;
    default:
      return unreachable(child);
  }
  if (isSecretLikeName(upper)) return "secret-like name";
  if (INJECTION_VECTORS.has(upper)) return "injection vector";
  return null;
}
var MIN_EMBEDDED_SECRET_LENGTH = 12;
function embeddedSecretMatcher(secrets) {
  const long = [...secrets].filter((secret) => secret.length >= MIN_EMBEDDED_SECRET_LENGTH);
  if (long.length === 0) return () => false;
  const redactor = createRedactor(long);
  return (value) => redactor.contains(value);
}
function buildChildEnv(options) {
  const secrets = new Set((options.knownSecrets ?? []).filter((s) => s.length > 0));
  const passThrough = new Set((options.passThrough ?? []).map((n) => n.toUpperCase()));
  const holdsEmbeddedSecret = embeddedSecretMatcher(secrets);
  const env = {};
  for (const [name, value] of Object.entries(options.base)) {
    if (value === void 0) continue;
    if (secrets.has(value) || holdsEmbeddedSecret(value)) continue;
    const upper = name.toUpperCase();
    const passable = passThrough.has(upper) && neverPassableReason(upper) === null;
    if (!passable && dropReason(name, options.child, options.base) !== null) continue;
    env[name] = value;
  }
  for (const [name, value] of Object.entries(options.set ?? {})) env[name] = value;
  return env;
}
var VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
function verifyEnvProblems(names, label) {
  const problems = [];
  for (const name of names) {
    if (!VARIABLE_NAME.test(name)) {
      problems.push(
        `${label} names ${JSON.stringify(name)}, which is not a variable name (letters, digits and _, not starting with a digit)`
      );
      continue;
    }
    const reason = neverPassableReason(name);
    if (reason !== null) problems.push(`${label} cannot pass ${name} to the verify command: ${reason}`);
  }
  return problems;
}

// src/proc/run-process.ts
import { spawn as spawn2 } from "node:child_process";
import { randomUUID } from "node:crypto";

// src/proc/child-identity.ts
import { AsyncLocalStorage } from "node:async_hooks";
import { spawnSync } from "node:child_process";

// src/proc/which.ts
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
function findExecutable(name, pathEnv) {
  const candidates = name.includes("/") || isAbsolute(name) ? [name] : (pathEnv ?? "").split(delimiter).filter(Boolean).map((d) => join(d, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
    }
  }
  return null;
}

// src/proc/child-identity.ts
var storage = new AsyncLocalStorage();
function currentChildScope() {
  return storage.getStore() ?? null;
}
function currentChildIdentity() {
  return storage.getStore()?.identity ?? null;
}
function commandAs(identity, file, args, env) {
  const own = { ...env, ...identity.runEnv, HOME: env.HOME ?? identity.home };
  if (own.GIT_CONFIG_COUNT === void 0) {
    own.GIT_CONFIG_COUNT = "1";
    own.GIT_CONFIG_KEY_0 = "safe.directory";
    own.GIT_CONFIG_VALUE_0 = "*";
  }
  if (identity.via === "root") {
    const ids = [`--reuid=${identity.uid}`, `--regid=${identity.gid}`, "--init-groups"];
    return { file: identity.setpriv, args: [...ids, "--", file, ...args], env: own };
  }
  const pinned = [
    `PATH=${own.PATH ?? "/usr/bin:/bin"}`,
    `HOME=${own.HOME}`,
    ...Object.entries(identity.runEnv ?? {}).map(([name, value]) => `${name}=${value}`)
  ];
  return {
    // From the system folders, not the child's PATH (which an earlier step's GITHUB_PATH may have planted).
    file: findExecutable("sudo", SYSTEM_TOOLS_ENV.PATH) ?? "/usr/bin/sudo",
    args: ["-n", "--preserve-env", "-u", identity.user, "--", "/usr/bin/env", ...pinned, file, ...args],
    env: own
  };
}
var SYSTEM_TOOLS_ENV = {
  PATH: "/usr/sbin:/usr/bin:/sbin:/bin",
  LANG: "C"
};
function privileged(identity, argv) {
  return identity.via === "root" ? [...argv] : ["sudo", "-n", ...argv];
}
function shareWithIdentity(path) {
  const identity = currentChildIdentity();
  if (identity === null) return;
  for (const step of [
    ["chgrp", "-R", String(identity.gid), path],
    ["chmod", "-R", "g+rwX", path],
    ["find", path, "-type", "d", "-exec", "chmod", "g+s", "{}", "+"]
  ]) {
    const [file, ...args] = privileged(identity, step);
    const result = spawnSync(file, args, { stdio: "ignore", env: { ...SYSTEM_TOOLS_ENV } });
    if (result.status !== 0)
      throw new Error(`could not share ${path} with ${identity.user} (${step[0]} exited ${result.status})`);
  }
}

// src/proc/child-output.ts
import { StringDecoder as StringDecoder2 } from "node:string_decoder";

// src/core/byte-windows.ts
var TailWindow = class {
  /** @param maxBytes the most bytes kept (a positive integer). */
  constructor(maxBytes) {
    this.maxBytes = maxBytes;
    if (!Number.isInteger(maxBytes) || maxBytes <= 0) {
      throw new Error(`Internal error: a tail window needs a positive size, got ${maxBytes}`);
    }
  }
  maxBytes;
  ring = Buffer.alloc(0);
  /** Index in `ring` of the oldest kept byte. */
  start = 0;
  kept = 0;
  dropped = 0;
  push(chunk) {
    if (chunk.length === 0) return;
    if (chunk.length >= this.maxBytes) {
      this.grow(this.maxBytes);
      this.dropped += this.kept + chunk.length - this.maxBytes;
      this.ring.set(chunk.subarray(chunk.length - this.maxBytes), 0);
      this.start = 0;
      this.kept = this.maxBytes;
      return;
    }
    const total = this.kept + chunk.length;
    this.grow(Math.min(this.maxBytes, total));
    const size = this.ring.length;
    const at = (this.start + this.kept) % size;
    const first = Math.min(chunk.length, size - at);
    this.ring.set(chunk.subarray(0, first), at);
    if (first < chunk.length) this.ring.set(chunk.subarray(first), 0);
    if (total > size) {
      const excess = total - size;
      this.start = (this.start + excess) % size;
      this.dropped += excess;
      this.kept = size;
    } else {
      this.kept = total;
    }
  }
  /** Bytes dropped from the front so far. */
  get droppedBytes() {
    return this.dropped;
  }
  /** Bytes kept now (at most `maxBytes`). */
  get keptBytes() {
    return this.kept;
  }
  /** The kept bytes in order, as a fresh buffer. */
  bytes() {
    const size = this.ring.length;
    const end = this.start + this.kept;
    if (end <= size) return Buffer.from(this.ring.subarray(this.start, end));
    return Buffer.concat([this.ring.subarray(this.start), this.ring.subarray(0, end - size)]);
  }
  /** The last kept byte, or `undefined` when nothing is kept. */
  lastByte() {
    if (this.kept === 0) return void 0;
    return this.ring[(this.start + this.kept - 1) % this.ring.length];
  }
  /** Forgets the last kept byte (it was never dropped: `droppedBytes` does not change). */
  dropLastByte() {
    if (this.kept > 0) this.kept--;
  }
  /** Grows the ring to at least `needed` bytes (at most `maxBytes`), keeping the kept bytes in order. */
  grow(needed) {
    if (this.ring.length >= needed) return;
    const size = Math.min(this.maxBytes, Math.max(needed, this.ring.length * 2, 64));
    const next = Buffer.allocUnsafe(size);
    this.bytesInto(next);
    this.ring = next;
    this.start = 0;
  }
  bytesInto(target) {
    const size = this.ring.length;
    if (size === 0) return;
    const end = this.start + this.kept;
    if (end <= size) {
      this.ring.copy(target, 0, this.start, end);
    } else {
      this.ring.copy(target, 0, this.start, size);
      this.ring.copy(target, size - this.start, 0, end - size);
    }
  }
};
function fromWholeCharacter(bytes) {
  let start = 0;
  while (start < bytes.length && (bytes[start] & 192) === 128) start++;
  return bytes.subarray(start);
}
var BoundedOutput = class {
  headCap;
  head = Buffer.alloc(0);
  headSize = 0;
  tail;
  /** @param capBytes the most bytes kept, head and tail together (at least 2). */
  constructor(capBytes) {
    this.headCap = Math.floor(capBytes / 2);
    this.tail = new TailWindow(Math.max(1, capBytes - this.headCap));
  }
  push(chunk) {
    let rest = chunk;
    if (this.headSize < this.headCap) {
      const take = Math.min(rest.length, this.headCap - this.headSize);
      if (this.headSize + take > this.head.length) {
        const size = Math.min(this.headCap, Math.max(this.headSize + take, this.head.length * 2, 64));
        const next = Buffer.allocUnsafe(size);
        this.head.copy(next, 0, 0, this.headSize);
        this.head = next;
      }
      this.head.set(rest.subarray(0, take), this.headSize);
      this.headSize += take;
      rest = rest.subarray(take);
    }
    this.tail.push(rest);
  }
  /** Removes the last byte kept when it is a `\n` (one a collector added after a line that had none). */
  dropFinalNewline() {
    if (this.tail.keptBytes > 0) {
      if (this.tail.lastByte() === 10) this.tail.dropLastByte();
    } else if (this.headSize > 0 && this.head[this.headSize - 1] === 10) {
      this.headSize--;
    }
  }
  /** Bytes dropped between the kept head and tail (0: the text is the whole output). */
  get droppedBytes() {
    return this.tail.droppedBytes;
  }
  /** Every byte pushed, kept or not. */
  get totalBytes() {
    return this.headSize + this.tail.droppedBytes + this.tail.keptBytes;
  }
  /**
   * The kept head and tail as UTF-8 text, apart (the tail starting on a whole character); when nothing
   * was dropped the whole output is the head and the tail is empty.
   */
  pieces() {
    const head = this.head.subarray(0, this.headSize);
    if (this.tail.droppedBytes === 0) {
      return { head: Buffer.concat([head, this.tail.bytes()]).toString("utf8"), tail: "" };
    }
    return { head: head.toString("utf8"), tail: fromWholeCharacter(this.tail.bytes()).toString("utf8") };
  }
  /**
   * The kept output as UTF-8 text. When bytes were dropped: the head, `\n`, and the tail starting on a
   * whole character (a character cut at the head's end decodes as U+FFFD).
   */
  text() {
    const head = this.head.subarray(0, this.headSize);
    if (this.tail.droppedBytes === 0) return Buffer.concat([head, this.tail.bytes()]).toString("utf8");
    return `${head.toString("utf8")}
${fromWholeCharacter(this.tail.bytes()).toString("utf8")}`;
  }
};

// src/proc/command-fence.ts
import { randomBytes } from "node:crypto";
import { StringDecoder } from "node:string_decoder";
var CommandFence = class {
  constructor(write, enabled, budget = null) {
    this.write = write;
    this.enabled = enabled;
    this.budget = budget;
  }
  write;
  enabled;
  budget;
  token = `eg-${randomBytes(16).toString("hex")}`;
  open = false;
  /** False while the last text written ended mid-line (a fragment of an over-long line). */
  atLineStart = true;
  /** For {@link line}: a budget may cut a line inside a character. */
  lineDecoder = new StringDecoder("utf8");
  /** Echo one line of child output (without its newline), opening the fence first if needed. */
  line(text) {
    if (this.budget !== null) {
      this.bytes(Buffer.from(`${text}
`, "utf8"), this.lineDecoder);
      return;
    }
    this.openFence();
    this.write(`${text}
`);
    this.atLineStart = true;
  }
  /**
   * Echo raw child output (a run of whole lines or a fragment), the part the budget lets through now,
   * decoded with the stream's own `decoder` (a character split between two pieces is echoed whole).
   */
  bytes(bytes, decoder) {
    const shown = this.budget !== null ? this.budget.take(bytes) : bytes;
    if (shown.length > 0) this.text(decoder.write(shown));
  }
  /**
   * Echo a run of child output as it is: whole lines, or the front of an over-long line (then the next
   * text continues that line in the log). Opens the fence first if needed.
   */
  text(text) {
    if (text === "") return;
    this.openFence();
    this.write(text);
    this.atLineStart = text.endsWith("\n");
  }
  /**
   * Echo the budget's marker and the kept end of the output (once), then resume workflow commands. Safe to
   * call more than once.
   */
  close() {
    const rest = this.budget?.finish() ?? { marker: null, tail: "" };
    if (rest.marker !== null) {
      this.openFence();
      if (!this.atLineStart) this.write("\n");
      this.write(`${rest.marker}
`);
      this.atLineStart = true;
    }
    this.text(rest.tail);
    if (this.open) {
      if (!this.atLineStart) this.write("\n");
      this.atLineStart = true;
      this.write(`::${this.token}::
`);
      this.open = false;
    }
  }
  openFence() {
    if (this.enabled && !this.open) {
      this.write(`::stop-commands::${this.token}
`);
      this.open = true;
    }
  }
};

// src/proc/echo-budget.ts
var DEFAULT_LOG_LIMIT_BYTES = 2 * 1024 * 1024;
var LOG_LIMIT_RANGE = { min: 1024, max: 1024 * 1024 * 1024 };
var LF = 10;
var LINE_START_SEARCH_BYTES = 64 * 1024;
var EMPTY = Buffer.alloc(0);
var EchoBudget = class {
  /** @param limitBytes the most bytes of output shown (an integer ≥ 2). */
  constructor(limitBytes) {
    this.limitBytes = limitBytes;
    if (!Number.isInteger(limitBytes) || limitBytes < 2)
      throw new Error(`Internal error: an echo budget needs at least 2 bytes, got ${limitBytes}`);
    this.#headLeft = Math.ceil(limitBytes / 2);
    this.#tail = new TailWindow(Math.floor(limitBytes / 2));
  }
  limitBytes;
  #headLeft;
  #tail;
  /** Bytes that went to the tail window (shown at the end, or left out). */
  #held = 0;
  #finished = false;
  /** The last byte shown, or -1 before any. */
  #lastShown = -1;
  /**
   * Takes the next bytes of output and returns the part to show now (a prefix of `bytes`, possibly empty);
   * the rest is held for the end or left out.
   */
  take(bytes) {
    if (this.#headLeft === 0 || this.#finished) {
      this.#hold(bytes);
      return EMPTY;
    }
    if (bytes.length <= this.#headLeft) {
      this.#headLeft -= bytes.length;
      if (bytes.length > 0) this.#lastShown = bytes[bytes.length - 1];
      return bytes;
    }
    let cut = bytes.lastIndexOf(LF, this.#headLeft - 1) + 1;
    if (cut === 0 && !this.#atLineEnd) cut = characterStart(bytes, this.#headLeft);
    this.#headLeft = 0;
    this.#hold(bytes.subarray(cut));
    return bytes.subarray(0, cut);
  }
  /** Whether what was shown so far is whole lines (and something was shown). */
  get #atLineEnd() {
    return this.#lastShown === LF;
  }
  /** The bytes of output left out of the log so far (final once {@link finish} was called). */
  get leftOutBytes() {
    return this.#tail.droppedBytes;
  }
  /**
   * The marker and the held end of the output (see {@link EchoRest}), when the child ended; nothing on a
   * second call, and bytes taken after the first are only counted.
   */
  finish() {
    if (this.#finished || this.#held === 0) {
      this.#finished = true;
      return { marker: null, tail: "" };
    }
    this.#finished = true;
    const kept = this.#tail.bytes();
    if (this.#tail.droppedBytes === 0) return { marker: null, tail: kept.toString("utf8") };
    const newline = kept.indexOf(LF);
    const near = Math.min(LINE_START_SEARCH_BYTES, kept.length / 2);
    const from = newline >= 0 && newline < near ? newline + 1 : 0;
    const shown = fromWholeCharacter(kept.subarray(from));
    const leftOut = this.#tail.droppedBytes + kept.length - shown.length;
    const half = formatBytes(Math.floor(this.limitBytes / 2));
    return {
      marker: `[evidence-gate: ${leftOut} bytes of this command's output left out of the log here (output-log-limit ${formatBytes(this.limitBytes)}: about the first and the last ${half} are shown)]`,
      tail: shown.toString("utf8")
    };
  }
  #hold(bytes) {
    if (bytes.length === 0) return;
    this.#held += bytes.length;
    this.#tail.push(bytes);
  }
};
function characterStart(bytes, at) {
  let i = at;
  while (i > 0 && (bytes[i] & 192) === 128) i--;
  return i;
}
function formatBytes(bytes) {
  for (const [unit, size] of [
    ["GiB", 1024 ** 3],
    ["MiB", 1024 ** 2],
    ["KiB", 1024]
  ]) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}

// src/proc/child-output.ts
var DEFAULT_MAX_LINE_BYTES = 64 * 1024;
var LF2 = 10;
var CR = 13;
var SMALL_COPY_BYTES = 4096;
var LineFramer = class {
  /**
   * @param emit gets each piece, in stream order.
   * @param maxLineBytes the most bytes of an unfinished line held (a positive integer).
   */
  constructor(emit, maxLineBytes = DEFAULT_MAX_LINE_BYTES) {
    this.emit = emit;
    this.maxLineBytes = maxLineBytes;
  }
  emit;
  maxLineBytes;
  pending = [];
  pendingSize = 0;
  /** True after a fragment, until the line's newline. */
  midLine = false;
  push(chunk) {
    if (chunk.length === 0) return;
    const newline = chunk.lastIndexOf(LF2);
    if (newline < 0) {
      this.hold(chunk);
      return;
    }
    let from = 0;
    if (this.pendingSize > 0) {
      const first = chunk.indexOf(LF2);
      this.emit("lines", foldCrLf(Buffer.concat([...this.pending, chunk.subarray(0, first + 1)])));
      this.pending = [];
      this.pendingSize = 0;
      from = first + 1;
    }
    this.midLine = false;
    if (newline + 1 > from) this.emit("lines", foldCrLf(chunk.subarray(from, newline + 1)));
    this.hold(chunk.subarray(newline + 1));
  }
  /**
   * Emits the stream's `last` piece (call once, when the stream ended): what is held, or an empty piece
   * when the stream ended right after a fragment, so an unfinished line always ends in a `last` piece.
   */
  flush() {
    if (this.pendingSize === 0 && !this.midLine) return;
    const rest = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingSize = 0;
    this.midLine = false;
    this.emit("last", rest);
  }
  hold(bytes) {
    if (bytes.length === 0) return;
    if (this.pendingSize + bytes.length <= this.maxLineBytes) {
      this.pending.push(bytes.length < SMALL_COPY_BYTES ? Buffer.from(bytes) : bytes);
      this.pendingSize += bytes.length;
      return;
    }
    for (const part of this.pending) this.emit("fragment", part);
    const carry = bytes[bytes.length - 1] === CR ? 1 : 0;
    if (bytes.length > carry) this.emit("fragment", bytes.subarray(0, bytes.length - carry));
    this.pending = carry === 1 ? [Buffer.from("\r")] : [];
    this.pendingSize = carry;
    this.midLine = true;
  }
};
function foldCrLf(bytes) {
  let at = bytes.indexOf("\r\n");
  if (at < 0) return bytes;
  const parts = [];
  let from = 0;
  while (at >= 0) {
    parts.push(bytes.subarray(from, at));
    from = at + 1;
    at = bytes.indexOf("\r\n", from);
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}
var BoundedLines = class {
  constructor(emit, maxLineBytes) {
    this.emit = emit;
    this.maxLineBytes = maxLineBytes;
  }
  emit;
  maxLineBytes;
  /** The over-long line in progress: its kept front, the bytes taken for it, the bytes dropped. */
  cut = null;
  piece(kind, bytes) {
    if (kind === "fragment") {
      this.takeCut(bytes);
      return;
    }
    let from = 0;
    if (this.cut !== null) {
      const newline = bytes.indexOf(10);
      this.takeCut(bytes.subarray(0, newline < 0 ? bytes.length : newline));
      this.endCut();
      if (newline < 0) return;
      from = newline + 1;
    }
    const lines = bytes.toString("utf8", from).split("\n");
    if (kind === "lines") lines.pop();
    for (const line of lines) this.line(line);
  }
  /** Ends an over-long line still in progress. */
  finish() {
    if (this.cut !== null) this.endCut();
  }
  line(line) {
    if (line.length * 3 <= this.maxLineBytes || Buffer.byteLength(line, "utf8") <= this.maxLineBytes) {
      this.emit(line);
      return;
    }
    this.takeCut(Buffer.from(line, "utf8"));
    this.endCut();
  }
  /** Bytes of the over-long line in progress: kept while its front has room, counted after. */
  takeCut(bytes) {
    this.cut ??= { head: "", headBytes: 0, dropped: 0, decoder: new StringDecoder2("utf8") };
    const room = Math.max(0, this.maxLineBytes - this.cut.headBytes);
    const kept = bytes.subarray(0, room);
    if (kept.length > 0) {
      this.cut.head += this.cut.decoder.write(kept);
      this.cut.headBytes += kept.length;
    }
    this.cut.dropped += bytes.length - kept.length;
  }
  endCut() {
    const cut = this.cut;
    if (cut === null) return;
    const dropped = cut.dropped + cut.headBytes - Buffer.byteLength(cut.head, "utf8");
    this.emit(`${cut.head}[\u2026 ${dropped} more bytes of this line not kept \u2026]`);
    this.cut = null;
  }
};
var OutputTail = class {
  window;
  constructor(maxBytes) {
    this.window = new TailWindow(maxBytes);
  }
  push(chunk) {
    this.window.push(chunk);
  }
  /** Bytes discarded from the front so far. */
  get droppedBytes() {
    return this.window.droppedBytes;
  }
  /** The kept tail as UTF-8 text, prefixed with a marker when bytes were dropped. */
  text() {
    const bytes = this.window.bytes();
    if (this.window.droppedBytes === 0) return bytes.toString("utf8");
    return `[\u2026 ${this.window.droppedBytes} earlier bytes not kept \u2026]
${fromWholeCharacter(bytes).toString("utf8")}`;
  }
};
function childEchoFence(echo) {
  return new CommandFence(
    echo.write,
    echo.fenceWorkflowCommands,
    new EchoBudget(echo.limitBytes ?? DEFAULT_LOG_LIMIT_BYTES)
  );
}
var DEFAULT_TAIL = 64 * 1024;
var NEWLINE = Buffer.from("\n");
var ChildOutput = class {
  constructor(options) {
    this.options = options;
    const tailBytes = options.tailBytes ?? DEFAULT_TAIL;
    this.stdoutTail = new OutputTail(tailBytes);
    this.stderrTail = new OutputTail(tailBytes);
    this.fence = options.echo ? childEchoFence(options.echo) : null;
    const maxLine = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    const framed = this.fence !== null || options.onOutput !== void 0;
    this.stdoutFramer = framed || options.onStdoutLine !== void 0 ? this.framer("stdout", options.onStdoutLine, maxLine) : null;
    this.stderrFramer = framed || options.onStderrLine !== void 0 ? this.framer("stderr", options.onStderrLine, maxLine) : null;
  }
  options;
  stdoutTail;
  stderrTail;
  fence;
  stdoutFramer;
  stderrFramer;
  /** The line callbacks' cutters, ended with the streams. */
  lineCutters = [];
  ended = false;
  stdout(chunk) {
    if (this.ended) return;
    this.stdoutTail.push(chunk);
    this.options.onStdoutData?.(chunk);
    this.stdoutFramer?.push(chunk);
  }
  stderr(chunk) {
    if (this.ended) return;
    this.stderrTail.push(chunk);
    this.stderrFramer?.push(chunk);
  }
  /** The kept tails as text (see {@link OutputTail.text}). */
  tails() {
    return { stdoutTail: this.stdoutTail.text(), stderrTail: this.stderrTail.text() };
  }
  /**
   * Flushes each stream's unfinished last line (stdout's, then stderr's) and closes the fence; later
   * chunks reach nobody. Idempotent.
   */
  end() {
    if (this.ended) return;
    this.stdoutFramer?.flush();
    this.stderrFramer?.flush();
    for (const cutter of this.lineCutters) cutter.finish();
    this.ended = true;
    this.fence?.close();
  }
  framer(stream, onLine, maxLineBytes) {
    const lines = onLine !== void 0 ? new BoundedLines(onLine, maxLineBytes) : null;
    if (lines !== null) this.lineCutters.push(lines);
    const decoder = this.fence !== null ? new StringDecoder2("utf8") : null;
    return new LineFramer((kind, bytes) => {
      this.options.onOutput?.({ stream, kind, bytes });
      if (decoder !== null)
        this.fence?.bytes(kind === "last" ? Buffer.concat([bytes, NEWLINE]) : bytes, decoder);
      lines?.piece(kind, bytes);
    }, maxLineBytes);
  }
};

// src/proc/leftovers.ts
import { spawnSync as spawnSync2 } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
var SPAWN_MARKER = "EVIDENCE_GATE_SPAWN";
var MAX_ROUNDS = 5;
function statOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[0] === "Z" ? null : { group: Number(fields[2]), session: Number(fields[3]), startTicks: Number(fields[19]) };
  } catch {
    return null;
  }
}
function sessionOf(pid) {
  return statOf(pid)?.session ?? null;
}
function startTicksOf(pid) {
  return statOf(pid)?.startTicks ?? null;
}
function holdsMarker(pid, needle) {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(needle);
  } catch {
    return false;
  }
}
function processIds() {
  try {
    return readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number).filter((pid) => pid !== process.pid);
  } catch {
    return [];
  }
}
function ownerOf(pid) {
  try {
    return statSync(`/proc/${pid}`).uid;
  } catch {
    return null;
  }
}
function throughSudo(identity) {
  return identity?.via === "sudo" && process.getuid?.() !== 0;
}
function signalAs(identity, targets, signal) {
  if (targets.length === 0) return;
  if (throughSudo(identity)) {
    const live2 = new Set(processIds().flatMap((pid) => [pid, -(statOf(pid)?.group ?? 0)]));
    targets = targets.filter((target) => live2.has(target));
    if (targets.length === 0) return;
    const [file, ...args] = privileged({ via: "sudo" }, [
      "kill",
      "-s",
      signal.replace(/^SIG/, ""),
      "--",
      ...targets.map(String)
    ]);
    spawnSync2(file, args, { stdio: "ignore", env: { ...SYSTEM_TOOLS_ENV } });
    return;
  }
  for (const target of targets) {
    try {
      process.kill(target, signal);
    } catch {
    }
  }
}
function markedThroughSudo(pids, needle) {
  if (pids.length === 0) return [];
  const [file, ...args] = privileged({ via: "sudo" }, [
    "grep",
    "-lzxF",
    "-e",
    needle,
    "--",
    ...pids.map((pid) => `/proc/${pid}/environ`)
  ]);
  const listed = spawnSync2(file, args, { encoding: "utf8", env: { ...SYSTEM_TOOLS_ENV } });
  return (listed.stdout ?? "").split("\n").map((line) => /^\/proc\/(\d+)\/environ$/.exec(line.trim())?.[1]).filter((pid) => pid !== void 0).map(Number);
}
function killMarked(marker, session, sinceTicks = null, identity = null) {
  const needle = `${SPAWN_MARKER}=${marker}`;
  const sudo = throughSudo(identity);
  const killed = /* @__PURE__ */ new Set();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const candidates = processIds().filter((pid) => {
      const stat = statOf(pid);
      return stat !== null && (sinceTicks === null || stat.startTicks >= sinceTicks);
    });
    const found = candidates.filter(
      (pid) => session !== null && sessionOf(pid) === session || holdsMarker(pid, needle)
    );
    if (sudo && identity !== null) {
      const unread = candidates.filter((pid) => !found.includes(pid) && ownerOf(pid) === identity.uid);
      found.push(...markedThroughSudo(unread, needle));
    }
    if (found.length === 0) break;
    if (sudo) {
      signalAs(identity, found, "SIGKILL");
      for (const pid of found) killed.add(pid);
      continue;
    }
    for (const pid of found) {
      try {
        process.kill(pid, "SIGKILL");
        killed.add(pid);
      } catch {
      }
    }
  }
  return [...killed];
}
function killAllAsUser(identity) {
  const send = ["/bin/sh", "-c", "kill -9 -1"];
  const argv = identity.via === "root" ? [identity.setpriv, `--reuid=${identity.uid}`, `--regid=${identity.gid}`, "--clear-groups", ...send] : ["sudo", "-n", "-u", identity.user, ...send];
  spawnSync2(argv[0], argv.slice(1), { stdio: "ignore", env: { ...SYSTEM_TOOLS_ENV } });
}
function killUserProcesses(identity) {
  let killed = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const [pgrep, ...pgrepArgs] = privileged(identity, ["pgrep", "-u", String(identity.uid)]);
    const listed = spawnSync2(pgrep, pgrepArgs, { encoding: "utf8", env: { ...SYSTEM_TOOLS_ENV } });
    const pids = (listed.stdout ?? "").split("\n").filter((line) => /^\d+$/.test(line.trim()) && sessionOf(Number(line)) !== null);
    if (pids.length === 0) break;
    killAllAsUser(identity);
    const [pkill, ...pkillArgs] = privileged(identity, ["pkill", "-KILL", "-u", String(identity.uid)]);
    spawnSync2(pkill, pkillArgs, { stdio: "ignore", env: { ...SYSTEM_TOOLS_ENV } });
    killed += pids.length;
    awaitGone(pids.map(Number));
  }
  return killed;
}
var DYING_WAIT_MS = 2e3;
function awaitGone(pids) {
  const end = Date.now() + DYING_WAIT_MS;
  const tick = new Int32Array(new SharedArrayBuffer(4));
  while (pids.some((pid) => statOf(pid) !== null) && Date.now() < end) Atomics.wait(tick, 0, 0, 10);
}

// src/proc/orphan-guard.ts
import { spawn } from "node:child_process";

// src/proc/trusted-tools.ts
var UntrustedToolError = class extends Error {
  constructor(tool, message) {
    super(message);
    this.tool = tool;
    this.name = "UntrustedToolError";
  }
  tool;
};
var configured = null;
function trustedCommand(name, fallback = name) {
  if (configured === null) return fallback;
  const tool = configured.tools[name];
  if (tool.kind === "missing") throw new UntrustedToolError(name, tool.message);
  return tool.path;
}
function trustedPathSetting() {
  return configured === null ? {} : { PATH: configured.path };
}

// src/proc/orphan-guard.ts
var GUARD_NAME = "evidence-gate-orphan-guard";
var GUARD_SCRIPT = `groups=' '
while read -r line; do
  id=\${line#?}
  case $line in
    +*) case $groups in *" $id "*) ;; *) groups="$groups$id " ;; esac ;;
    -*) case $groups in *" $id "*) groups="\${groups%% $id *} \${groups#* $id }" ;; esac ;;
  esac
done
for id in $groups; do
  case $id in
    s*) /usr/bin/sudo -n kill -s KILL -- "-\${id#s}" 2>/dev/null ;;
    *) kill -s KILL -- "-$id" 2>/dev/null ;;
  esac
done
exit 0`;
var guard = null;
var live = /* @__PURE__ */ new Set();
function runningGuard() {
  if (guard !== null && guard.exitCode === null && guard.signalCode === null && guard.stdin?.writable)
    return guard;
  let started;
  try {
    started = spawn(trustedCommand("sh", "/bin/sh"), ["-c", GUARD_SCRIPT, GUARD_NAME], {
      env: { PATH: "/usr/bin:/bin" },
      stdio: ["pipe", "ignore", "ignore"],
      // Its own group: a signal to the engine's group (Ctrl-C) must not end the guard before the engine
      // has stopped its children.
      detached: true
    });
  } catch {
    return null;
  }
  started.on("error", () => {
  });
  started.stdin?.on("error", () => {
  });
  started.unref();
  started.stdin?.unref?.();
  guard = started;
  if (live.size > 0) started.stdin?.write([...live].map((id) => `+${id}
`).join(""));
  return started;
}
function guardGroup(pgid, o = {}) {
  const id = o.throughSudo === true ? `s${pgid}` : String(pgid);
  live.add(id);
  runningGuard()?.stdin?.write(`+${id}
`);
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      live.delete(id);
      if (guard !== null && guard.exitCode === null && guard.signalCode === null && guard.stdin?.writable)
        guard.stdin.write(`-${id}
`);
    }
  };
}

// src/proc/run-process.ts
var MAX_TIMER_MS = 2147483647;
var DRAIN_GRACE_MS = 2e3;
function killGroup(pid, signal, identity) {
  signalAs(identity, [-pid], signal);
}
function runProcess(options) {
  const started = Date.now();
  return new Promise((resolve3) => {
    if (options.signal?.aborted) {
      resolve3({ kind: "cancelled", stdoutTail: "", stderrTail: "", durationMs: 0, pid: null });
      return;
    }
    let start;
    let child;
    try {
      start = startLine(options);
      child = spawn2(start.file, start.args, {
        cwd: options.cwd,
        env: start.env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true
      });
    } catch (error) {
      resolve3({ kind: "spawn_failed", message: String(error), durationMs: Date.now() - started });
      return;
    }
    superviseChild(child, { ...options, marker: start.marker, scope: currentChildScope() }, started, resolve3);
  });
}
function startLine(options) {
  const [command, commandArgs] = options.shell ? [trustedCommand("sh", "/bin/sh"), ["-c", options.command]] : [options.command, [...options.args ?? []]];
  if (options.prCode !== true)
    return { file: command, args: commandArgs, env: { ...options.env }, marker: null };
  const { file, args } = currentChildScope()?.launch(command, commandArgs) ?? {
    file: command,
    args: commandArgs
  };
  const marker = randomUUID();
  const env = { ...options.env, [SPAWN_MARKER]: marker };
  const identity = currentChildIdentity();
  return identity === null ? { file, args, env, marker } : { ...commandAs(identity, file, args, env), marker };
}
function superviseChild(child, options, started, resolve3) {
  const output = new ChildOutput(options);
  const pid = child.pid ?? null;
  const identity = options.marker !== null ? options.scope?.identity ?? null : null;
  const guard2 = pid !== null && options.orphanGuard !== false ? guardGroup(pid, { throughSudo: identity?.via === "sudo" && process.getuid?.() !== 0 }) : null;
  const startTicks = pid !== null && options.marker !== null ? startTicksOf(pid) : null;
  let stopReason = null;
  const timers = [];
  let settled = false;
  const stop = (reason) => {
    if (stopReason !== null || pid === null) return;
    stopReason = reason;
    killGroup(pid, "SIGTERM", identity);
    const kill = setTimeout(() => killGroup(pid, "SIGKILL", identity), options.killGraceMs ?? 3e3);
    kill.unref();
    timers.push(kill);
  };
  if (options.timeoutMs !== void 0) {
    timers.push(setTimeout(() => stop({ kind: "timed_out" }), Math.min(options.timeoutMs, MAX_TIMER_MS)));
  }
  const onAbort = () => stop({ kind: "cancelled" });
  options.signal?.addEventListener("abort", onAbort, { once: true });
  child.stdout?.on("data", (chunk) => output.stdout(chunk));
  child.stderr?.on("data", (chunk) => output.stderr(chunk));
  const finish = (result) => {
    if (settled) return;
    settled = true;
    guard2?.release();
    for (const timer of timers) clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    output.end();
    child.stdout?.destroy();
    child.stderr?.destroy();
    resolve3(result);
  };
  child.on("error", (error) => {
    finish({ kind: "spawn_failed", message: error.message, durationMs: Date.now() - started });
  });
  const settle = (code, signal) => {
    if (settled) return;
    output.end();
    const leftBehind = options.marker !== null ? killMarked(options.marker, pid, startTicks, identity).length : void 0;
    if (options.scope !== null && leftBehind !== void 0) options.scope.leftBehind += leftBehind;
    const streams = {
      ...output.tails(),
      durationMs: Date.now() - started,
      pid,
      ...leftBehind !== void 0 ? { leftBehind } : {}
    };
    if (pid !== null) killGroup(pid, "SIGKILL", identity);
    finish(resultOf(streams, { stopReason, code, signal, timeoutMs: options.timeoutMs ?? 0 }));
  };
  child.on("exit", (code, signal) => {
    const drain = setTimeout(() => settle(code, signal), options.drainGraceMs ?? DRAIN_GRACE_MS);
    drain.unref();
    timers.push(drain);
    child.on("close", () => settle(code, signal));
  });
}
function resultOf(streams, end) {
  if (end.stopReason?.kind === "timed_out")
    return { ...streams, kind: "timed_out", timeoutMs: end.timeoutMs };
  if (end.stopReason?.kind === "cancelled") return { ...streams, kind: "cancelled" };
  if (end.code !== null) return { ...streams, kind: "exited", exitCode: end.code };
  return { ...streams, kind: "signalled", signal: end.signal ?? "unknown" };
}

// src/proc/trusted-git.ts
import { AsyncLocalStorage as AsyncLocalStorage2 } from "node:async_hooks";
import { realpathSync } from "node:fs";
import { isAbsolute as isAbsolute2, relative, resolve } from "node:path";
var PINNED_EVERYWHERE = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.pager", "cat"],
  ["core.askPass", ""]
];
var PINNED_BEFORE_SCOPE = [
  ["protocol.allow", "never"],
  ["protocol.file.allow", "always"],
  ["protocol.http.allow", "always"],
  ["protocol.https.allow", "always"],
  ["protocol.ssh.allow", "always"],
  ["core.sshCommand", "ssh"],
  ["credential.helper", ""],
  ["core.alternateRefsCommand", "true"],
  ["gc.auto", "0"],
  ["maintenance.auto", "false"],
  ["submodule.recurse", "false"],
  ["fetch.recurseSubmodules", "false"]
];
var checkoutGuarded = false;
function checkoutConfigurationGuarded() {
  return checkoutGuarded;
}
var CHECKOUT_PROGRAM_KEYS_ARGS = [
  "config",
  "--show-scope",
  "--name-only",
  "--get-regexp",
  "^(filter|remote)\\."
];
function checkoutProgramPins(listed) {
  const pins = /* @__PURE__ */ new Map();
  for (const line of listed.split("\n")) {
    const [scope, key] = line.split("	");
    if (key === void 0 || scope !== "local" && scope !== "worktree") continue;
    const lower = key.toLowerCase();
    const filter = /^filter\.(.+)\.[^.]+$/s.exec(key);
    if (filter !== null) {
      const name = filter[1];
      for (const field of ["clean", "smudge", "process"]) pins.set(`filter.${name}.${field}`, "");
      pins.set(`filter.${name}.required`, "false");
      continue;
    }
    const remote = /^remote\.(.+)\.(uploadpack|receivepack)$/is.exec(key);
    if (remote !== null) pins.set(key, lower.endsWith("uploadpack") ? "git-upload-pack" : "git-receive-pack");
  }
  return [...pins].flatMap(([key, value]) => ["-c", `${key}=${value}`]);
}
var PINNED_TRUSTED = [
  ["core.attributesFile", "/dev/null"],
  ["core.excludesFile", "/dev/null"],
  ["core.untrackedCache", "false"],
  ["core.splitIndex", "false"],
  ["protocol.allow", "never"],
  ["protocol.file.allow", "always"],
  ["protocol.http.allow", "always"],
  ["protocol.https.allow", "always"],
  ["uploadpack.packObjectsHook", ""],
  ["submodule.recurse", "false"]
];
var ENV_EVERYWHERE = { GIT_NO_REPLACE_OBJECTS: "1" };
var TRUSTED_ENV = {
  ...ENV_EVERYWHERE,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_ATTR_NOSYSTEM: "1",
  GIT_PAGER: "cat",
  PAGER: "cat",
  GIT_TERMINAL_PROMPT: "0"
};
var storage2 = new AsyncLocalStorage2();
function hiddenPaths(cwd) {
  const trusted = storage2.getStore();
  if (trusted === void 0 || !onTrustedGit(cwd)) return [];
  const root = real(trusted.workTree);
  return trusted.hidden().map((path) => relative(root, real(path))).filter((rel) => rel !== "" && !rel.startsWith("..") && !isAbsolute2(rel)).map((rel) => rel.split("\\").join("/"));
}
function currentTrustedGit() {
  return storage2.getStore() ?? null;
}
function onTrustedGit(cwd) {
  const trusted = currentTrustedGit();
  return trusted !== null && isInside(cwd, trusted.workTree);
}
function real(path) {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
function isInside(dir, root) {
  const rel = relative(real(root), real(dir));
  return rel === "" || !rel.startsWith("..") && !isAbsolute2(rel);
}
var configArgs = (pairs) => pairs.flatMap(([key, value]) => ["-c", `${key}=${value}`]);
function engineGitCall(args, o) {
  const trusted = currentTrustedGit();
  if (trusted === null || !onTrustedGit(o.cwd)) {
    const before = checkoutGuarded && trusted === null ? configArgs(PINNED_BEFORE_SCOPE) : [];
    return {
      args: [...configArgs(PINNED_EVERYWHERE), ...before, ...args],
      baseEnv: o.baseEnv,
      set: { ...ENV_EVERYWHERE, ...o.set },
      trusted: false
    };
  }
  return {
    args: [
      `--git-dir=${trusted.gitDir}`,
      `--work-tree=${trusted.workTree}`,
      ...configArgs(PINNED_EVERYWHERE),
      ...configArgs(PINNED_TRUSTED),
      ...args
    ],
    baseEnv: Object.fromEntries(Object.entries(o.baseEnv).filter(([name]) => !/^GIT_/i.test(name))),
    set: { ...TRUSTED_ENV, HOME: trusted.home, XDG_CONFIG_HOME: trusted.home, ...o.set },
    trusted: true
  };
}

// src/proc/git.ts
var GitError = class extends Error {
  constructor(args, detail) {
    super(`git ${args.join(" ")} failed: ${detail}`);
    this.args = args;
    this.detail = detail;
    this.name = "GitError";
  }
  args;
  detail;
};
async function beforeScopePins(args, options) {
  if (!checkoutConfigurationGuarded() || currentTrustedGit() !== null) return [];
  if (args.some((arg) => arg.startsWith("--git-dir="))) return [];
  try {
    const listed = await runGit(CHECKOUT_PROGRAM_KEYS_ARGS, options, { tailBytes: 1024 * 1024 }, []);
    return checkoutProgramPins(listed.stdoutTail);
  } catch (error) {
    if (error instanceof GitError) return [];
    throw error;
  }
}
async function runGit(args, options, output, pins) {
  const before = pins ?? await beforeScopePins(args, options);
  const call = engineGitCall([...before, ...args], {
    cwd: options.cwd,
    baseEnv: options.baseEnv ?? process.env,
    set: { GIT_TERMINAL_PROMPT: "0", ...trustedPathSetting(), ...options.set }
  });
  const result = await runProcess({
    // The action's trusted git (resolved at start, never a PATH entry the pull request can write).
    command: trustedCommand("git"),
    args: call.args,
    cwd: options.cwd,
    env: buildChildEnv({
      base: call.baseEnv,
      child: { kind: "git" },
      knownSecrets: options.knownSecrets ?? [],
      set: call.set
    }),
    timeoutMs: options.timeoutMs ?? 12e4,
    // Local git ends by itself within its timeout: no orphan guard (one more process per git call).
    orphanGuard: false,
    ...output
  });
  if (result.kind !== "exited") {
    throw new GitError(args, result.kind === "spawn_failed" ? result.message : result.kind);
  }
  if (result.exitCode !== 0) {
    throw new GitError(args, `exit ${result.exitCode}: ${result.stderrTail.trim().slice(-2e3)}`);
  }
  return result;
}
async function git(args, options) {
  const result = await runGit(args, options, { tailBytes: 8 * 1024 * 1024 });
  return result.stdoutTail.replace(/\n$/, "");
}
async function gitStream(args, options) {
  await runGit(args, options, {
    tailBytes: 64 * 1024,
    onStdoutData: options.onStdout,
    ...options.signal !== void 0 ? { signal: options.signal } : {}
  });
}

// src/local-run/writable-paths.ts
var CODE_WORDS = {
  EROFS: "read-only file system",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOTDIR: "a part of the path is a file, not a folder",
  EISDIR: "it is a folder",
  EEXIST: "a file is in the way",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  ENOENT: "no such file or folder"
};
var codeOf = (error) => typeof error === "object" && error !== null && typeof error.code === "string" ? error.code : void 0;
var worded = (code) => code === void 0 ? "not writable" : `${code}: ${CODE_WORDS[code] ?? "not writable"}`;
function unwritable(path) {
  try {
    accessSync2(path, constants2.W_OK | constants2.X_OK);
    return null;
  } catch (error) {
    return worded(codeOf(error));
  }
}
function childFolderProblem(parent, dir) {
  const first = join2(parent, relative2(parent, dir).split(sep)[0] ?? "");
  try {
    mkdirSync(first);
  } catch (error) {
    return worded(codeOf(error));
  }
  rmdirSync(first);
  return null;
}
function folderWriteProblem(label, dir, fix) {
  let path = resolve2(dir);
  for (; ; ) {
    let isFolder;
    try {
      isFolder = statSync2(path).isDirectory();
    } catch (error) {
      const code = codeOf(error);
      if ((code === "ENOENT" || code === "ENOTDIR") && dirname(path) !== path) {
        path = dirname(path);
        continue;
      }
      return `${label} cannot be used (${worded(code)}): ${fix}`;
    }
    if (!isFolder) {
      return path === resolve2(dir) ? `${label} is a file, not a folder: ${fix}` : `${label} cannot be created: ${path} is a file, not a folder: ${fix}`;
    }
    const why = unwritable(path) ?? (path === resolve2(dir) ? null : childFolderProblem(path, resolve2(dir)));
    if (why === null) return null;
    return path === resolve2(dir) ? `${label} is not writable (${why}): ${fix}` : `${label} cannot be created: ${path} is not writable (${why}). ${fix}`;
  }
}
function outputFileProblem(flag, file) {
  const folder = dirname(file);
  let stats;
  try {
    stats = statSync2(file);
  } catch {
    stats = void 0;
  }
  if (stats?.isDirectory()) return `${flag} is a folder: give a file path`;
  try {
    if (!statSync2(folder).isDirectory()) return `${flag}: ${folder} is a file, not a folder`;
  } catch {
    return `${flag}: the folder ${folder} does not exist`;
  }
  const why = stats !== void 0 ? fileUnwritable(file) : unwritable(folder) ?? newFileProblem(file);
  return why === null ? null : `${flag} cannot be written (${why}): give a path in a writable folder, or leave ${flag.split(" ")[0]} out`;
}
function newFileProblem(file) {
  try {
    closeSync(openSync(file, "wx"));
  } catch (error) {
    return worded(codeOf(error));
  }
  unlinkSync(file);
  return null;
}
function fileUnwritable(file) {
  try {
    accessSync2(file, constants2.W_OK);
    return null;
  } catch (error) {
    return worded(codeOf(error));
  }
}
async function gitObjectsProblem(root, context) {
  let objects;
  try {
    objects = await git(["rev-parse", "--git-path", "objects"], {
      cwd: root,
      baseEnv: context.env,
      knownSecrets: context.knownSecrets
    });
  } catch (error) {
    if (error instanceof GitError) return null;
    throw error;
  }
  const path = isAbsolute3(objects) ? objects : join2(root, objects);
  const why = unwritable(path);
  return why === null ? null : `the repository ${root} cannot be written: git's object store ${path} is not writable (${why}), and every evidence tree is hashed into it. Run on a writable clone of the repository. Nothing was run.`;
}
function writeFailureProblem(error) {
  const code = codeOf(error);
  const path = error?.path;
  if (code !== void 0 && code !== "ENOENT" && code in CODE_WORDS && typeof path === "string") {
    return `could not write ${path} (${worded(code)}): make that place writable, or point --runs-dir, --summary-out or --check-run-out elsewhere, then run again`;
  }
  if (error instanceof GitError && /read-only file system|permission denied|no space left/i.test(error.detail)) {
    return `git could not write the repository (${error.message.split("\n")[0]}): run on a writable clone with free space, then run again`;
  }
  return null;
}

export {
  buildChildEnv,
  verifyEnvProblems,
  findExecutable,
  currentChildScope,
  currentChildIdentity,
  SYSTEM_TOOLS_ENV,
  privileged,
  shareWithIdentity,
  BoundedOutput,
  OutputTail,
  childEchoFence,
  killUserProcesses,
  trustedCommand,
  runProcess,
  hiddenPaths,
  currentTrustedGit,
  onTrustedGit,
  isInside,
  GitError,
  git,
  gitStream,
  folderWriteProblem,
  outputFileProblem,
  gitObjectsProblem,
  writeFailureProblem
};
