/**
 * The run's verify results by what makes two verifies the same (SPEC §5: the evidence tree and the
 * command), so a second sink on the same tree does not re-buy the run's evidence.
 */
import type { VerifyEvidence } from "../core/ledger-row.js";
import type { Pattern } from "../graph/pattern.js";

/**
 * What makes two verifies the same: the evidence tree and the command (SPEC §5), plus the directory it
 * runs in, the exit code that passes and the `output_matches` pattern, without which "the same result"
 * would not follow.
 */
export interface VerifyCacheKey {
  readonly tree: string;
  readonly command: string;
  readonly cwd: string;
  readonly expectExit: number;
  /** The `output_matches` pattern's source as written in the graph; `null` when there is none. */
  readonly outputMatches: string | null;
  /** How many times the command runs (`verify-repeat`): one run is not the evidence of three. */
  readonly repeat: number;
}

/** The key of a verify of `command` in `cwd` on `tree`. */
export function verifyCacheKey(
  verify: {
    readonly command: string;
    readonly cwd: string;
    readonly expectExit: number;
    readonly outputMatches?: Pattern;
    readonly repeat?: number;
  },
  tree: string,
): VerifyCacheKey {
  return {
    tree,
    command: verify.command,
    cwd: verify.cwd,
    expectExit: verify.expectExit,
    outputMatches: verify.outputMatches?.source ?? null,
    repeat: Math.max(1, Math.floor(verify.repeat ?? 1)),
  };
}

/** Results of judged verifies in one run, so a second sink on the same tree does not re-buy them. */
export class VerifyCache {
  private readonly entries = new Map<
    string,
    { readonly nodeId: string; readonly evidence: VerifyEvidence }
  >();

  private static id(key: VerifyCacheKey): string {
    return JSON.stringify([key.tree, key.command, key.cwd, key.expectExit, key.outputMatches, key.repeat]);
  }

  /** The first recorded result for `key` and the node it was recorded for. */
  lookup(key: VerifyCacheKey): { readonly nodeId: string; readonly evidence: VerifyEvidence } | undefined {
    return this.entries.get(VerifyCache.id(key));
  }

  /** Records `evidence` for `key` unless a result is already recorded (the first one stands). */
  record(key: VerifyCacheKey, nodeId: string, evidence: VerifyEvidence): void {
    const id = VerifyCache.id(key);
    if (!this.entries.has(id)) this.entries.set(id, { nodeId, evidence });
  }
}
