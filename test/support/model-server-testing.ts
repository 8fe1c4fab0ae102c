/**
 * What the scripted model server's own tests (model-server.test.ts for the Anthropic side,
 * model-server-openai.test.ts for the OpenAI side) share: servers started per test and closed after it,
 * a JSON POST to one of its endpoints, and a strict SSE body parser.
 */
import { afterEach, expect } from "vitest";
import { type ModelScript, type ModelServer, startModelServer } from "./model-server/index.js";

/**
 * Closes every server it started after each test (registers `afterEach`).
 *
 * @returns a starter: a server playing `script`, else `defaultScript`.
 */
export function serversPerTest(defaultScript: ModelScript): (script?: ModelScript) => Promise<ModelServer> {
  const servers: ModelServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return async (script = defaultScript) => {
    const server = await startModelServer({ script });
    servers.push(server);
    return server;
  };
}

/** `POST path` with `body` as JSON. */
export function postJson(
  server: ModelServer,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

/**
 * Parses an SSE body into [{event, data}], checking each event is an `event:` line and a `data:` line
 * (nothing else), and that the data's `type` names the event.
 */
export function parseSse(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split("\n\n")
    .filter((chunk) => chunk.trim() !== "")
    .map((chunk) => {
      const [eventLine, dataLine, ...rest] = chunk.split("\n");
      expect(rest).toEqual([]);
      expect(eventLine).toMatch(/^event: /);
      expect(dataLine).toMatch(/^data: /);
      const event = eventLine!.slice("event: ".length);
      const data = JSON.parse(dataLine!.slice("data: ".length)) as Record<string, unknown>;
      expect(data.type).toBe(event);
      return { event, data };
    });
}
