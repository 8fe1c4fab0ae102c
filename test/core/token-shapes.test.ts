/**
 * Token-shape redaction (SPEC §9; issue 12 item 5): vendor-prefixed credentials that nobody declared are
 * replaced as written, and ordinary words that merely contain a prefix are left alone.
 *
 * Every token here is assembled at run time from a prefix and a filler, so this file holds no string a
 * secret scanner would take for a real credential.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createRedactor, REDACTED } from "../../src/core/redact.js";
import { hasTokenShape, redactTokenShapes, TOKEN_SHAPES } from "../../src/core/token-shapes.js";
import { escapeCell, escapeInline } from "../../src/ledger/markdown-syntax.js";
import { REPO_ROOT } from "../support/repo-root.js";

const ALPHABET = "aB3dE5fG7hJ9kLmN2pQ4rS6tU8vW0xYz";
/** `n` characters of mixed-case base62 filler. */
function body(n: number): string {
  let out = "";
  for (let i = 0; i < n; i++) out += ALPHABET[(i * 7 + 3) % ALPHABET.length];
  return out;
}
const token = (prefix: string, n: number): string => prefix + body(n);

/** One token of every shape, as its vendor issues it today. */
const SAMPLES: readonly (readonly [string, string])[] = [
  ["GitHub classic personal access token", token("gh" + "p_", 36)],
  ["GitHub OAuth token", token("gh" + "o_", 36)],
  ["GitHub user-to-server token", token("gh" + "u_", 36)],
  ["GitHub server-to-server token (GITHUB_TOKEN)", token("gh" + "s_", 36)],
  ["GitHub refresh token", token("gh" + "r_", 76)],
  ["GitHub fine-grained personal access token", `${token("github" + "_pat_", 22)}_${body(59)}`],
  ["Anthropic API key", `${token("sk-" + "ant-api03-", 86)}-${body(6)}AA`],
  ["Claude Code OAuth token", `${token("sk-" + "ant-oat01-", 86)}-${body(6)}AA`],
  ["OpenAI legacy key", token("sk" + "-", 48)],
  ["OpenAI project key", `${token("sk" + "-proj-", 74)}_${body(81)}`],
  ["OpenAI service-account key", token("sk" + "-svcacct-", 120)],
  ["npm access token", token("np" + "m_", 36)],
  ["GitLab personal access token", token("gl" + "pat-", 20)],
  ["Slack bot token", `xo${"xb"}-1234567890-1234567890123-${body(24)}`],
  ["AWS access key id", `AK${"IA"}${"IOSFODNN7EXAMPLE"}`],
  ["AWS temporary access key id", `AS${"IA"}${"Q3EGUWSQVNHJRXYZ"}`],
  ["Google API key", token("AI" + "za", 35)],
  ["Stripe live secret key", token("sk" + "_live_", 24)],
  ["Stripe restricted test key", token("rk" + "_test_", 24)],
  ["JSON Web Token", `ey${"J"}hbGciOiJSUzI1NiJ9.ey${"J"}zdWIiOiJyZXBvOm8vcjpwdWxsX3JlcXVlc3QifQ.${body(43)}`],
];

describe("redactTokenShapes: every documented shape is replaced", () => {
  it.each(SAMPLES)("%s", (_name, value) => {
    for (const around of [
      (t: string) => t,
      (t: string) => `printed ${t} by the build`,
      (t: string) => `{"token":"${t}","n":1}`,
      (t: string) => `TOKEN=${t}\n`,
      (t: string) => `https://x-access-token:${t}@github.com/o/r.git`,
      (t: string) => `Authorization: Bearer ${t}`,
      (t: string) => `(${t}).`,
      (t: string) => `é ${t} 中文`,
    ]) {
      const out = redactTokenShapes(around(value));
      expect(out, around(value)).toBe(around(REDACTED));
      expect(hasTokenShape(around(value))).toBe(true);
    }
  });

  it("two tokens in one word are both replaced, and the text between them is kept", () => {
    const a = token("gh" + "s_", 36);
    const b = token("np" + "m_", 36);
    expect(redactTokenShapes(`${a},${b};ok`)).toBe(`${REDACTED},${REDACTED};ok`);
  });

  it("a longer body than today's is replaced whole (GitHub: up to 255 characters)", () => {
    const long = token("gh" + "p_", 251);
    expect(redactTokenShapes(`x ${long} y`)).toBe(`x ${REDACTED} y`);
  });
});

describe("redactTokenShapes: ordinary words are not eaten", () => {
  it.each([
    ["words that end in a prefix", "task-list risk-free desk-top disk-usage whisk-it"],
    ["a prefix inside a word", "deskgh_abcdefghijklmnopqrstuvwxyz0123456789 xsk-AbCdEfGhIjKlMnOpQrStUv"],
    ["a short body", "ghp_short github_pat_x sk-ant-api03 npm_123 glpat-abc AIzaShort eyJhbGciOi"],
    [
      "a kebab-case name after sk- (no upper-case letter)",
      "pip install sk-learn-style-package-name-for-models",
    ],
    ["an all-upper-case name after sk-", "SK-PLAN: sk-ALL-UPPER-CASE-NAME-WITH-DASHES"],
    ["an AWS-like id that runs on", "AKIAIOSFODNN7EXAMPLEANDMORE ASIA1234"],
    [
      "hex object ids, run ids and UUIDs",
      "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678 20250101-000000-abcdef 123e4567-e89b-12d3-a456-426614174000",
    ],
    ["a dotted name that is not a JWT", "eyJust.kidding.here version 1.2.3"],
    ["ledger words", "PASS (verified) FAIL verify_failed exit-only self-reported sk-"],
    ["a PEM public key or certificate", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----"],
  ])("%s", (_label, text) => {
    expect(redactTokenShapes(text)).toBe(text);
    expect(hasTokenShape(text)).toBe(false);
  });
});

describe("redactTokenShapes: PEM private keys (RFC 7468)", () => {
  const lines = [
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
    "q9Xr1b2Z3y4W5v6U7t8S9r0Q1p2O3n4M5l6K7j8I9h0G1f2E3d4C",
    "5b6A7z8Y9x0W1v2U3t4S5r6Q==",
  ];

  it("keeps the BEGIN and END lines and replaces the body", () => {
    const block = `key:\n-----BEGIN RSA PRIVATE KEY-----\n${lines.join("\n")}\n-----END RSA PRIVATE KEY-----\ndone`;
    expect(redactTokenShapes(block)).toBe(
      `key:\n-----BEGIN RSA PRIVATE KEY-----\n${REDACTED}\n-----END RSA PRIVATE KEY-----\ndone`,
    );
  });

  it("does the same inside a JSON string (\\n escapes), with CRLF, and for an encrypted key's headers", () => {
    const json = JSON.stringify({
      k: `-----BEGIN PRIVATE KEY-----\n${lines.join("\n")}\n-----END PRIVATE KEY-----`,
    });
    expect(JSON.parse(redactTokenShapes(json))).toEqual({
      k: `-----BEGIN PRIVATE KEY-----\n${REDACTED}\n-----END PRIVATE KEY-----`,
    });
    const crlf = `-----BEGIN EC PRIVATE KEY-----\r\n${lines.join("\r\n")}\r\n-----END EC PRIVATE KEY-----`;
    expect(redactTokenShapes(crlf)).toBe(
      `-----BEGIN EC PRIVATE KEY-----\r\n${REDACTED}\r\n-----END EC PRIVATE KEY-----`,
    );
    const encrypted = `-----BEGIN ENCRYPTED PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0A1B\n\n${lines.join("\n")}\n-----END ENCRYPTED PRIVATE KEY-----`;
    expect(redactTokenShapes(encrypted)).not.toContain(lines[1]);
  });

  it("a block whose END line was cut off loses its base64 lines, and the prose after them stays", () => {
    const cut = `tail: -----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join("\n")}\nnpm ERR! something else`;
    expect(redactTokenShapes(cut)).toBe(
      `tail: -----BEGIN OPENSSH PRIVATE KEY-----\n${REDACTED}\nnpm ERR! something else`,
    );
  });

  it("many BEGIN lines with no END line anywhere are each handled once", () => {
    const text = `-----BEGIN PRIVATE KEY-----\n${"A".repeat(64)}\n`.repeat(2000);
    const out = redactTokenShapes(text);
    expect(out).not.toContain("AAAA");
    expect(out.startsWith(`-----BEGIN PRIVATE KEY-----\n${REDACTED}\n-----BEGIN`)).toBe(true);
    expect(out.split("-----BEGIN PRIVATE KEY-----")).toHaveLength(2001);
  });
});

describe("redactTokenShapes: hostile input", () => {
  it.each([
    ["dense prefixes with no body", "sk-".repeat(200_000)],
    ["dense JWT-like starts", "eyJ-".repeat(100_000)],
    ["one huge word", `x${"a".repeat(1_000_000)}`],
    ["one huge word with many prefixes and no token", "ghp_abc.".repeat(150_000)],
  ])("%s: returned unchanged", (_label, text) => {
    expect(redactTokenShapes(text)).toBe(text);
  });

  it("a token at the end of a megabyte word is still found", () => {
    const t = token("gh" + "s_", 36);
    expect(redactTokenShapes(`${"b".repeat(1_000_000)}-${t}`)).toBe(`${"b".repeat(1_000_000)}-${REDACTED}`);
  });
});

describe("redactTokenShapes: a URL's password (RFC 3986 §3.2.1)", () => {
  it("only the password goes; the scheme, user, host, port and path stay", () => {
    expect(redactTokenShapes("DATABASE_URL=postgres://app:hunter2@db.internal:5432/app ok")).toBe(
      `DATABASE_URL=postgres://app:${REDACTED}@db.internal:5432/app ok`,
    );
    expect(redactTokenShapes('connect "redis://:s3cret@cache:6379/0" and https://u:p%40ss@h/x?y#z')).toBe(
      `connect "redis://:${REDACTED}@cache:6379/0" and https://u:${REDACTED}@h/x?y#z`,
    );
    // the last @ of the authority ends the userinfo (a password may hold an unencoded @)
    expect(redactTokenShapes("mysql://root:a@b@localhost/db")).toBe(`mysql://root:${REDACTED}@localhost/db`);
  });

  it("URLs with no password are unchanged: no userinfo, a user only, a port colon, an @ in the path, an empty password", () => {
    for (const text of [
      "https://github.com/o/r/pull/1",
      "ssh://git@github.com:22/o/r.git",
      "http://localhost:8080/@scope/pkg",
      "https://h/path?q=a:b@c",
      "postgres://app:@db/app",
      "nothing here: a:b@c and :// alone",
      `postgres://app:${REDACTED}@db/app`,
    ]) {
      expect(redactTokenShapes(text), text).toBe(text);
      expect(hasTokenShape(text), text).toBe(false);
    }
  });

  it("not by the run directory's redactor, whose state.json commands are run again on resume", () => {
    const command = "DATABASE_URL=postgres://test:test@localhost/t npm test";
    expect(createRedactor([]).text(command)).toBe(command);
    expect(redactTokenShapes(command, { urlPasswords: false })).toBe(command);
  });

  it("many :// with long authorities stay linear and unchanged", () => {
    const text = `${"x://".repeat(200_000)}${"a".repeat(100_000)}`;
    expect(redactTokenShapes(text)).toBe(text);
  });
});

describe("token-shapes.ts documents every shape it applies", () => {
  it("each pattern appears in the module's docstring table, with a source", () => {
    const source = readFileSync(join(REPO_ROOT, "src", "core", "token-shapes.ts"), "utf8");
    const doc = source.slice(0, source.indexOf("*/"));
    for (const shape of TOKEN_SHAPES) {
      const row = doc.split("\n").find((line) => line.includes(`\`${shape.pattern.replace(/\|/g, "\\|")}`));
      expect(row, shape.pattern).toBeDefined();
      expect(row!.split("|").length, shape.pattern).toBeGreaterThanOrEqual(5);
    }
  });
});

describe("createRedactor: shapes on every path", () => {
  const shaped = token("gh" + "p_", 36);
  const known = "known-secret-value-0123456789";

  it("text redacts shapes with no known secret, and both nets with one", () => {
    expect(createRedactor([]).text(`a ${shaped} b`)).toBe(`a ${REDACTED} b`);
    expect(createRedactor([known]).text(`${known} ${shaped}`)).toBe(`${REDACTED} ${REDACTED}`);
  });

  it("a shape split by a zero-width space or a colour code is still found (invisible characters go first)", () => {
    const r = createRedactor([]);
    expect(r.text(`${shaped.slice(0, 10)}\u200b${shaped.slice(10)}`)).toBe(REDACTED);
    expect(r.text(`${shaped.slice(0, 10)}\u001b[0m${shaped.slice(10)}`)).toBe(REDACTED);
  });

  it("deep copies only what changed, and returns untouched values as they are", () => {
    const r = createRedactor([]);
    const clean = { a: ["b", { c: 1 }], d: null };
    expect(r.deep(clean)).toBe(clean);
    const dirty = { keep: { x: "y" }, rows: [{ detail: `printed ${shaped}` }] };
    const out = r.deep(dirty);
    expect(out).toEqual({ keep: { x: "y" }, rows: [{ detail: `printed ${REDACTED}` }] });
    expect(out.keep).toBe(dirty.keep);
    expect(JSON.stringify(dirty)).toContain(shaped);
  });

  it("contains counts known secrets only (a pass-through registry token is no known secret)", () => {
    const r = createRedactor([known]);
    expect(r.contains(shaped)).toBe(false);
    expect(r.contains(`x${known}x`)).toBe(true);
    expect(createRedactor([]).active).toBe(false);
  });
});

describe("createRedactor().bytes", () => {
  const shaped = token("gh" + "s_", 36);
  const known = "sécret-välue-0123456789";

  it("replaces known values (raw and JSON-escaped) and shapes, byte for byte elsewhere, binary included", () => {
    const r = createRedactor([known, 'quo"ted-secret-value']);
    const bin = Buffer.concat([
      Buffer.from([0x00, 0xff, 0xc3]),
      Buffer.from(` ${known} ${JSON.stringify('quo"ted-secret-value')} ${shaped} `, "utf8"),
      Buffer.from([0xfe, 0x80]),
    ]);
    const out = r.bytes(bin);
    expect([...out.subarray(0, 3)]).toEqual([0x00, 0xff, 0xc3]);
    expect([...out.subarray(-2)]).toEqual([0xfe, 0x80]);
    expect(out.subarray(3, -2).toString("utf8")).toBe(` ${REDACTED} "${REDACTED}" ${REDACTED} `);
  });

  it("returns the very buffer when nothing is redacted, invisible characters and escapes included", () => {
    const r = createRedactor([known]);
    const patch = Buffer.from("+ a\u200bb \u001b[31mred\u001b[0m café\n", "utf8");
    expect(r.bytes(patch)).toBe(patch);
  });

  it("finds a shape next to multi-byte UTF-8 characters and keeps them intact", () => {
    const out = createRedactor([]).bytes(Buffer.from(`à${shaped}… 中`, "utf8"));
    expect(out.toString("utf8")).toBe(`à${REDACTED}… 中`);
  });
});

describe("redaction of Markdown the ledger's renderers escaped (what a check run, summary or comment receives)", () => {
  const shaped = token("gh" + "p_", 36);
  const pat = `${token("github" + "_pat_", 22)}_${body(59)}`;
  const known = "known_secret*value|0123456789&more";

  it("a token shape in a table cell or a line is found as it renders (`\\_` is `_`)", () => {
    for (const escaped of [
      escapeCell(`leaked ${shaped}\nand ${pat}`),
      escapeInline(`leaked ${shaped} and ${pat}`),
    ]) {
      expect(escaped).toContain("\\_");
      const out = createRedactor([]).text(escaped);
      expect(out).not.toContain(body(36));
      expect(out).not.toContain(body(59));
      expect(out.match(/\*\*\*/g)).toHaveLength(2);
    }
  });

  it("a known secret is found in its escaped form too", () => {
    const r = createRedactor([known]);
    expect(r.text(`| ${escapeCell(known)} |`)).toBe(`| ${REDACTED} |`);
    expect(r.text(escapeInline(`x ${known} y`))).toBe(`x ${REDACTED} y`);
  });

  it("a PEM block in a table cell (lines joined by <br>) loses its body", () => {
    const cell = escapeCell(`-----BEGIN PRIVATE KEY-----\n${"Q".repeat(64)}\n${"R".repeat(20)}==`);
    expect(createRedactor([]).text(cell)).toBe(`-----BEGIN PRIVATE KEY-----<br>${REDACTED}`);
  });
});
