/**
 * Finding the JSON object in a planner reply (research/oh-my-graph.md §3.3).
 *
 * The planner is asked for one JSON object, and may wrap it in a code fence or a sentence. The object is
 * taken from the first `{` to the last `}`: tolerant of wrapping, and loud when prose around it contains
 * braces (the slice then fails to decode). Neither failure is repairable: a reply with no decodable
 * object gives the repair call nothing to quote, so the run fails instead of paying for a second guess.
 */

/** Replies larger than this are not decoded (a plan of six nodes is a few kilobytes). */
export const MAX_PLAN_REPLY_BYTES = 1024 * 1024;

/** Bytes of the raw reply kept on a failure, for the run directory and the error row. */
export const PLAN_REPLY_EXCERPT_BYTES = 500;

export type PlanJsonErrorKind = "no_json" | "undecodable";

export type PlanJsonResult =
  | { readonly ok: true; readonly value: unknown }
  | {
      readonly ok: false;
      readonly kind: PlanJsonErrorKind;
      /** Always false: these failures end planning without a repair call. */
      readonly repairable: false;
      /** One sentence saying what was wrong, e.g. `the planner reply holds no JSON object`. */
      readonly message: string;
      /** The start of the raw reply (at most 500 UTF-8 bytes), untrusted: fence it before showing it to a model. */
      readonly excerpt: string;
    };

function excerptOf(reply: string): string {
  const bytes = Buffer.from(reply, "utf8");
  if (bytes.length <= PLAN_REPLY_EXCERPT_BYTES) return reply;
  // Decoding a cut buffer may end in a broken character; drop the replacement character it becomes.
  return `${bytes
    .subarray(0, PLAN_REPLY_EXCERPT_BYTES)
    .toString("utf8")
    .replace(/\uFFFD$/, "")}…`;
}

/** The plan object of a planner reply, or why there is none. Never throws. */
export function extractPlanJson(reply: string): PlanJsonResult {
  const fail = (kind: PlanJsonErrorKind, message: string): PlanJsonResult => ({
    ok: false,
    kind,
    repairable: false,
    message,
    excerpt: excerptOf(reply),
  });
  const size = Buffer.byteLength(reply, "utf8");
  if (size > MAX_PLAN_REPLY_BYTES) {
    return fail(
      "undecodable",
      `the planner reply is ${size} bytes, over the ${MAX_PLAN_REPLY_BYTES}-byte limit`,
    );
  }
  const first = reply.indexOf("{");
  const last = reply.lastIndexOf("}");
  if (first === -1 || last < first) {
    return fail("no_json", "the planner reply holds no JSON object");
  }
  try {
    return { ok: true, value: JSON.parse(reply.slice(first, last + 1)) as unknown };
  } catch (error: unknown) {
    const detail = error instanceof Error ? error.message : String(error);
    return fail(
      "undecodable",
      `the planner reply's text from the first "{" to the last "}" is not valid JSON (${detail})`,
    );
  }
}
