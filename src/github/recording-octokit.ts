/**
 * An Octokit that sends nothing: every request is recorded as `{method, path, body}` and answered with
 * a minimal, well-formed response. The CLI uses it for `--check-run-out FILE` (and the demo writes
 * `demo-out/check-run.json` with it), so the payloads shown are exactly what the real client would send.
 */
import { GateOctokit } from "./octokit.js";

/** One request the client would have sent. `path` excludes the API base URL and the query. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
}

const FAKE_BASE = "https://api.github.invalid";

/** Creates the recording client; `requests` fills in call order. */
export function createRecordingOctokit(): { octokit: GateOctokit; requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  let nextId = 1;
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    const method = (init?.method ?? "GET").toUpperCase();
    const body =
      typeof init?.body === "string" && init.body !== "" ? (JSON.parse(init.body) as unknown) : null;
    requests.push({ method, path: url.pathname, body });
    const runMatch = /\/check-runs\/(\d+)$/.exec(url.pathname);
    const id = runMatch ? Number(runMatch[1]) : nextId++;
    const payload =
      method === "GET"
        ? { total_count: 0, check_runs: [] }
        : {
            id,
            html_url: `https://github.invalid${url.pathname.replace(/\/check-runs.*$/, "")}/runs/${id}`,
            status: "in_progress",
          };
    return new Response(JSON.stringify(payload), {
      status: method === "POST" ? 201 : 200,
      headers: { "content-type": "application/json" },
    });
  };
  const octokit = new GateOctokit({
    baseUrl: FAKE_BASE,
    request: { fetch },
    retry: { enabled: false },
    throttle: { enabled: false },
  });
  return { octokit, requests };
}
