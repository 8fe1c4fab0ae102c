/**
 * The parts of GitHub's webhook payloads the bot reads (https://docs.github.com/webhooks/webhook-events-and-payloads),
 * as zod schemas: only the fields used, everything else ignored.
 */
import { z } from "zod";

/** A full 40-hex commit SHA, lower-cased. */
export const commitSha = z
  .string()
  .regex(/^[0-9a-fA-F]{40}$/, "expected a 40-hex commit SHA")
  .transform((s) => s.toLowerCase());

/** `repository` of every repository event. */
export const repositoryPart = z.object({
  name: z.string().min(1),
  full_name: z.string().regex(/^[^/\s]+\/[^/\s]+$/, "expected OWNER/NAME"),
  owner: z.object({ login: z.string().min(1) }),
  html_url: z.string().url(),
  default_branch: z.string().min(1).optional(),
});

/** `sender`: who caused the event (a click, a re-run). Never trusted alone for a permission. */
export const senderPart = z.object({ login: z.string().min(1), type: z.string().optional() });

export type RepositoryPart = z.infer<typeof repositoryPart>;

/** `https://github.com/OWNER/NAME/actions/workflows/FILE`: where a queued check run's link points. */
export function workflowPageUrl(repository: RepositoryPart, workflowFile: string): string {
  return `${repository.html_url.replace(/\/+$/, "")}/actions/workflows/${encodeURIComponent(workflowFile)}`;
}
