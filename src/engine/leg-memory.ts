/**
 * What one leg keeps in memory only, never in `state.json`: the replies placeholders read, the feedback
 * payloads, and where codex threads live (a path on this machine; a later leg may run elsewhere).
 */
import type { Graph } from "../graph/graph.js";
import type { InterpolationContext } from "../graph/placeholders.js";
import type { RunDirectory } from "./run-dir.js";

export class LegMemory {
  /** The reply of every node that passed, by node id (its saved output is `nodes/ID.out`). */
  readonly replies = new Map<string, string>();
  /** The latest feedback payload of each arc declarer that fired (`{{ feedback.ID }}`), by declarer id. */
  readonly feedbackPayloads = new Map<string, string>();
  /** Codex: the `CODEX_HOME` each thread of this leg lives in, by thread id (a resumed thread runs there). */
  readonly codexHomes = new Map<string, string>();

  /**
   * The placeholder values a node of `graph` is interpolated with (SPEC §3): the run's inputs, a passed
   * node's saved output path and content, and a declarer's latest payload (`""` before its first round;
   * `undefined` for a node that declares no arc).
   */
  placeholderValues(
    graph: Graph,
    inputs: Readonly<Record<string, string>>,
    dir: RunDirectory,
  ): InterpolationContext {
    return {
      inputs,
      artifactPath: (ref) => (this.replies.has(ref) ? dir.nodeOutputPath(ref) : undefined),
      readArtifact: (ref) => this.replies.get(ref),
      feedback: (ref) =>
        graph.nodes_by_id.get(ref)?.feedback ? (this.feedbackPayloads.get(ref) ?? "") : undefined,
    };
  }
}
