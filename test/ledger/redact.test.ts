/**
 * Redaction of known secret values (SPEC §9; research/security.md §4.6, hostile case 19): plain, JSON-
 * escaped, URL-encoded, hex, base64 and base64url forms, at any alignment inside a larger base64 blob.
 */
import { describe, expect, it } from "vitest";
import { createRedactor, REDACTED, secretForms } from "../../src/core/redact.js";

const TOKEN = "ghs_secretTokenValue0123456789abcdefXYZ";
const KEY = "sk-ant-api03-key/with+slash=and&amp?";

describe("createRedactor().text", () => {
  const redactor = createRedactor([TOKEN, KEY]);

  it("replaces the value as written, every occurrence", () => {
    expect(redactor.text(`a ${TOKEN} b ${TOKEN}`)).toBe(`a ${REDACTED} b ${REDACTED}`);
  });

  it("replaces the JSON-escaped and URL-encoded forms", () => {
    const quoted = 'sk-"quoted"\\value';
    const r = createRedactor([quoted]);
    expect(r.text(JSON.stringify({ k: quoted }))).toBe(`{"k":"${REDACTED}"}`);
    expect(redactor.text(`https://x.example/?k=${encodeURIComponent(KEY)}`)).toBe(
      `https://x.example/?k=${REDACTED}`,
    );
    const lower = encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase());
    expect(redactor.text(lower)).toBe(REDACTED);
  });

  it("replaces hex, base64 and base64url of the value (padded or not, as `echo` with a newline prints it)", () => {
    const bytes = Buffer.from(TOKEN);
    expect(redactor.text(bytes.toString("hex"))).toBe(REDACTED);
    expect(redactor.text(bytes.toString("hex").toUpperCase())).toBe(REDACTED);
    expect(redactor.text(bytes.toString("base64"))).not.toContain(bytes.toString("base64").slice(0, 20));
    expect(redactor.text(bytes.toString("base64url"))).not.toContain(
      bytes.toString("base64url").slice(0, 20),
    );
    const keyB64 = Buffer.from(KEY).toString("base64");
    expect(keyB64).toMatch(/[+/]/);
    expect(redactor.text(`key: ${keyB64}`)).toMatch(/^key: \*\*\*=*$/);
    expect(redactor.text(Buffer.from(KEY).toString("base64url"))).toBe(REDACTED);
    const withNewline = Buffer.from(`${TOKEN}\n`).toString("base64");
    expect(redactor.contains(redactor.text(withNewline))).toBe(false);
  });

  it("catches the value base64-encoded inside a larger blob, at every byte alignment (`env | base64`)", () => {
    for (let prefix = 0; prefix < 6; prefix++) {
      for (const suffix of ["", "\n", "\nX=y\n"]) {
        const blob = Buffer.from(`${"P".repeat(prefix)}GITHUB_TOKEN=${TOKEN}${suffix}`);
        for (const encoding of ["base64", "base64url"] as const) {
          const encoded = blob.toString(encoding);
          const redacted = redactor.text(encoded);
          expect(redacted, `${encoding} prefix ${prefix}`).toContain(REDACTED);
          expect(redactor.contains(redacted)).toBe(false);
          const decoded = Buffer.from(redacted.replaceAll("*", ""), encoding).toString("latin1");
          expect(decoded).not.toContain(TOKEN);
        }
      }
    }
  });

  it("leaves text without a secret unchanged, and a longer secret wins over one it contains", () => {
    expect(redactor.text("nothing to see")).toBe("nothing to see");
    const r = createRedactor(["abcdefghijkl", "abcdefghijklmnop"]);
    expect(r.text("xabcdefghijklmnopx abcdefghijkl")).toBe(`x${REDACTED}x ${REDACTED}`);
  });

  it("ignores secrets shorter than 12 characters (ordinary words like PASS or verified), empty and undefined ones", () => {
    const r = createRedactor(["PASS", "verified", "abcdefghijk", "", undefined]);
    expect(r.active).toBe(false);
    expect(r.text("PASS (verified) abcdefghijk")).toBe("PASS (verified) abcdefghijk");
    expect(secretForms("abcdefghijk")).toEqual([]);
    expect(createRedactor(["abcdefghijkl"]).text("abcdefghijkl")).toBe(REDACTED);
  });

  it("drops derived forms too short to be specific, but always keeps the value itself", () => {
    for (const form of secretForms("abcdefghijkl"))
      expect(form === "abcdefghijkl" || form.length >= 6).toBe(true);
    expect(secretForms("abcdefghijkl")).toContain("abcdefghijkl");
  });
});

describe("createRedactor().deep", () => {
  const redactor = createRedactor([TOKEN]);

  it("copies arrays and plain objects, redacting every string and key, and leaves other values", () => {
    const input = {
      runId: "r1",
      rows: [{ detail: `printed ${TOKEN}`, costUsd: 0.5, sink: true, usage: null }],
      nested: { [`key-${TOKEN}`]: [TOKEN, 3, undefined] },
    };
    const frozen = Object.freeze(input);
    const out = redactor.deep(frozen);
    expect(out).toEqual({
      runId: "r1",
      rows: [{ detail: `printed ${REDACTED}`, costUsd: 0.5, sink: true, usage: null }],
      nested: { [`key-${REDACTED}`]: [REDACTED, 3, undefined] },
    });
    expect(out).not.toBe(input);
    expect(JSON.stringify(input)).toContain(TOKEN);
    expect(JSON.stringify(out)).not.toContain(TOKEN);
  });

  it("returns the value itself when there is nothing to redact", () => {
    const value = { a: "b" };
    expect(createRedactor([]).deep(value)).toBe(value);
  });
});

describe("createRedactor().contains", () => {
  it("finds any form of any secret", () => {
    const r = createRedactor([TOKEN]);
    expect(r.contains(`x${TOKEN}x`)).toBe(true);
    expect(r.contains(Buffer.from(TOKEN).toString("base64"))).toBe(true);
    expect(r.contains("clean")).toBe(false);
  });
});

describe("forms a child may print to slip a secret past a plain match", () => {
  const SECRET = "ghs_fakesecret12345678";
  const r = createRedactor([SECRET]);
  const hexPairs = Buffer.from(SECRET).toString("hex").match(/../g)!;

  it.each([
    ["ANSI escapes between characters", SECRET.split("").join("\u001b[0m")],
    ["a zero-width space inside", `${SECRET.slice(0, 5)}\u200b${SECRET.slice(5)}`],
    ["every byte percent-encoded", hexPairs.map((p) => `%${p}`).join("")],
    ["a spaced hex dump", hexPairs.join(" ")],
    ["partly percent-encoded (the underscore)", SECRET.replace("_", "%5F")],
  ])("%s is redacted", (_label, printed) => {
    expect(r.text(`x ${printed} y`)).toBe(`x ${REDACTED} y`);
  });

  it("text without a secret keeps its characters, except terminal escapes, which a ledger never needs", () => {
    expect(r.text("\u001b[31mred\u001b[0m PASS")).toBe("red PASS");
  });
});

describe("invisible characters and erasing controls inside a secret do not hide it", () => {
  const SECRET = "ghs_fakesecret12345678";
  const r = createRedactor([SECRET]);
  it.each([
    ["a soft hyphen", `${SECRET.slice(0, 8)}\u00ad${SECRET.slice(8)}`],
    ["a combining grapheme joiner", `${SECRET.slice(0, 8)}\u034f${SECRET.slice(8)}`],
    ["a backspace erasing a decoy", `${SECRET.slice(0, 11)}Z\b${SECRET.slice(11)}`],
  ])("%s", (_label, printed) => {
    expect(r.text(printed)).toBe(REDACTED);
  });
});
