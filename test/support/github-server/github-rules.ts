/**
 * Rules the real API enforces that the description's schemas do not express. Each cites its source.
 * Checked only after the body passed its schema.
 */

/**
 * GitHub documents `output.summary` / `output.text` as "Maximum length: 65535 characters" and the
 * description says `maxLength: 65535` (JSON Schema counts code points; Ajv checks that). The API
 * actually counts UTF-8 bytes: `{"resource":"CheckRun","code":"custom","field":"summary",
 * "message":"summary exceeds a maximum bytesize of 65535"}` — https://github.com/github/docs/issues/35252
 * and https://github.com/dorny/test-reporter/issues/57. Page: https://docs.github.com/rest/checks/runs
 */
export const CHECK_RUN_OUTPUT_MAX_BYTES = 65_535;

type Rule = (body: Record<string, unknown>) => string[];

const checkRunOutputBytes: Rule = (body) => {
  const output = body.output as Record<string, unknown> | undefined;
  if (output === undefined) return [];
  const errors: string[] = [];
  for (const field of ["summary", "text"]) {
    const value = output[field];
    if (typeof value !== "string") continue;
    const bytes = Buffer.byteLength(value, "utf8");
    if (bytes > CHECK_RUN_OUTPUT_MAX_BYTES) {
      errors.push(
        `body/output/${field}: ${field} exceeds a maximum bytesize of ${CHECK_RUN_OUTPUT_MAX_BYTES} (${bytes} bytes)`,
      );
    }
  }
  return errors;
};

/**
 * From the description's own text for `conclusion`: "Required if you provide `completed_at` or a
 * `status` of `completed`" and "You cannot change a check run conclusion to `stale`, only GitHub can
 * set this." (https://docs.github.com/rest/checks/runs#create-a-check-run)
 */
const checkRunConclusion: Rule = (body) => {
  const errors: string[] = [];
  const completing = body.status === "completed" || body.completed_at !== undefined;
  if (completing && body.conclusion === undefined) {
    errors.push("body/conclusion: required when `status` is `completed` or `completed_at` is given");
  }
  if (body.conclusion === "stale") errors.push("body/conclusion: only GitHub can set `stale`");
  return errors;
};

/**
 * The annotation object's documented limits the schema leaves out (https://docs.github.com/rest/checks/runs,
 * "annotations" object): `message` and `raw_details` "The maximum size is 64 KB" (checked as 65536 UTF-8
 * bytes, the loosest reading), `title` "The maximum size is 255 characters", and "Annotations only support
 * `start_column` and `end_column` on the same line". `maxItems: 50` is in the schema itself.
 */
const annotationLimits: Rule = (body) => {
  const output = body.output as { annotations?: unknown } | undefined;
  if (!Array.isArray(output?.annotations)) return [];
  const errors: string[] = [];
  output.annotations.forEach((a: Record<string, unknown>, i: number) => {
    const at = `body/output/annotations/${i}`;
    for (const field of ["message", "raw_details"]) {
      const value = a[field];
      if (typeof value === "string" && Buffer.byteLength(value, "utf8") > 65_536)
        errors.push(`${at}/${field}: over 64 KB (${Buffer.byteLength(value, "utf8")} bytes)`);
    }
    if (typeof a.title === "string" && Array.from(a.title).length > 255)
      errors.push(`${at}/title: over 255 characters`);
    if ((a.start_column !== undefined || a.end_column !== undefined) && a.start_line !== a.end_line)
      errors.push(`${at}: start_column/end_column given for an annotation over several lines`);
  });
  return errors;
};

const RULES: Record<string, readonly Rule[]> = {
  "checks/create": [checkRunOutputBytes, checkRunConclusion, annotationLimits],
  "checks/update": [checkRunOutputBytes, checkRunConclusion, annotationLimits],
};

export function githubRequestRules(operationId: string, body: unknown): string[] {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return [];
  return (RULES[operationId] ?? []).flatMap((rule) => rule(body as Record<string, unknown>));
}
