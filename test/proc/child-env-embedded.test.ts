import { describe, expect, it } from "vitest";
import { buildChildEnv } from "../../src/proc/child-env.js";

const TOKEN = "ghs_fakesecret1234567890";

describe("a variable that embeds a known secret is dropped, whatever its name", () => {
  it.each([
    ["MY_COPY", `Bearer ${TOKEN}`],
    ["HTTPS_PROXY_URL", `https://x:${TOKEN}@proxy.internal:8080`],
    ["NOTE", `token ${TOKEN} here`],
  ])("%s holding the token inside its value does not reach the verify command", (name, value) => {
    const env = buildChildEnv({
      base: { PATH: "/usr/bin", [name]: value },
      child: { kind: "verify" },
      knownSecrets: [TOKEN],
    });
    expect(env[name]).toBeUndefined();
    expect(env.PATH).toBe("/usr/bin");
  });

  it("a short secret is matched only as a whole value, so ordinary values that contain it survive", () => {
    const env = buildChildEnv({
      base: { LANG: "C.UTF-8", SHORT: "abc" },
      child: { kind: "verify" },
      knownSecrets: ["abc", "UTF"],
    });
    expect(env.LANG).toBe("C.UTF-8");
    expect(env.SHORT).toBeUndefined();
  });
});

describe("an encoded copy of a known secret inside a variable is dropped too", () => {
  it.each([
    ["B64_HDR", Buffer.from(`x-access-token:${TOKEN}`).toString("base64")],
    ["URLENC", `https://h/?t=${TOKEN.replace("_", "%5F")}`],
  ])("%s does not reach the verify command", (name, value) => {
    const env = buildChildEnv({ base: { [name]: value }, child: { kind: "verify" }, knownSecrets: [TOKEN] });
    expect(env[name]).toBeUndefined();
  });
});
