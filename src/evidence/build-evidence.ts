/**
 * The build-evidence decision of an `auto` run, taken before any model call (SPEC §5 table; seed 003;
 * research/oh-my-graph.md §6.7, §6.9).
 *
 * | verify-cmd | accept-no-build-evidence | signals | answer                                   |
 * | ---------- | ------------------------ | ------- | ---------------------------------------- |
 * | given      | —                        | any     | `attached`                               |
 * | —          | true                     | found   | `declared`                               |
 * | —          | any                      | none    | `none-detected`                          |
 * | —          | —                        | found   | refused: nothing runs, nothing is billed |
 * | given      | true                     | any     | usage error naming both inputs           |
 *
 * The base-branch policy file may give a default verify command (used when the workflow gives none and
 * does not accept; `attached`, declared by `policy`) and `require-evidence: true` (then accepting is a
 * usage error naming the policy file). A repository file can only make this STOP — signals never attach
 * or run anything.
 */
import { posix } from "node:path";
import type { BuildEvidenceAnswer, BuildSignal } from "../core/build-evidence-answer.js";
import { POLICY_FILE } from "../policy/policy-file.js";
import { chooseVerifyCommand, type Surface, type VerifyChoice } from "./verify-choice.js";
import { suggestVerifyCommand } from "./verify-suggestion.js";

export type { Surface };

export interface BuildEvidenceInputs {
  /**
   * The workflow's / operator's verify command. `undefined` means "not given"; the action must map an
   * unset input (`core.getInput` → `""`) to `undefined`. A given but blank command is a usage error.
   */
  readonly verifyCmd?: string;
  readonly acceptNoBuildEvidence: boolean;
  /** From `scanBuildSignals` over the checked-out root (and `working-directory`). */
  readonly signals: readonly BuildSignal[];
  /**
   * The policy file's settings, when it exists. `source` says where it was read (e.g.
   * `.github/evidence-gate.yml (base ref main, commit 1a2b3c4)`); messages quote it.
   */
  readonly policy?: {
    readonly verifyCmd?: string;
    readonly requireEvidence?: boolean;
    readonly source?: string;
  };
  readonly surface: Surface;
  /**
   * The checked-out root (absolute). The CLI then names a folder to move the run into by its absolute
   * path: `--working-directory` is resolved from `--repo`, so only an absolute path means the same folder
   * wherever the command is typed. The action's `working-directory` is the root's, and stays relative.
   */
  readonly repoDir?: string;
  /**
   * The verify command already chosen from `verifyCmd` and the policy's (`chooseVerifyCommand`), when the
   * caller chose it; absent: chosen here from the same fields.
   */
  readonly verify?: VerifyChoice;
}

/** The decision: an answer to record, a refusal (exit 3 / `action_required`), or a usage error (exit 64). */
export type BuildEvidenceDecision =
  | { readonly kind: "answer"; readonly answer: BuildEvidenceAnswer }
  | { readonly kind: "refused"; readonly signals: readonly BuildSignal[]; readonly message: string }
  | { readonly kind: "usage_error"; readonly message: string };

interface Spelling {
  readonly verifyCmd: (command: string) => string;
  readonly verifyCmdName: string;
  readonly accept: string;
  readonly acceptName: string;
  /** `folder` relative to the root; `root` absolute, when known. */
  readonly workingDirectory: (folder: string, root: string | undefined) => string;
}

const SPELLINGS: Record<Surface, Spelling> = {
  action: {
    verifyCmd: (c) => `verify-cmd: ${yamlSingleQuoted(c)}`,
    verifyCmdName: "verify-cmd",
    accept: "accept-no-build-evidence: true",
    acceptName: "accept-no-build-evidence",
    workingDirectory: (f) => `working-directory: ${yamlSingleQuoted(f)}`,
  },
  cli: {
    verifyCmd: (c) => `--verify-cmd ${posixSingleQuoted(c)}`,
    verifyCmdName: "--verify-cmd",
    accept: "--accept-no-build-evidence",
    acceptName: "--accept-no-build-evidence",
    workingDirectory: (f, root) =>
      `--working-directory ${posixSingleQuoted(root !== undefined ? posix.join(root, f) : f)}`,
  },
};

/** A YAML single-quoted scalar: the only escape is `''` for `'`. */
function yamlSingleQuoted(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** A POSIX shell single-quoted word: `'` is written `'\''`. */
function posixSingleQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * Decides the run's build evidence from its inputs. Pure: reads nothing, runs nothing.
 */
export function decideBuildEvidence(inputs: BuildEvidenceInputs): BuildEvidenceDecision {
  const spell = SPELLINGS[inputs.surface];
  const { acceptNoBuildEvidence, policy } = inputs;
  const verify =
    inputs.verify ??
    chooseVerifyCommand({
      ...(inputs.verifyCmd !== undefined ? { given: inputs.verifyCmd } : {}),
      acceptNoBuildEvidence,
      ...(policy !== undefined ? { policy } : {}),
      surface: inputs.surface,
    });
  if (verify.kind === "empty") return { kind: "usage_error", message: verify.message };
  if (verify.kind === "chosen" && verify.declaredBy === "input" && acceptNoBuildEvidence) {
    return {
      kind: "usage_error",
      message:
        `${spell.acceptName} says this run carries no build evidence, but ${spell.verifyCmdName} ` +
        `${JSON.stringify(verify.command)} supplies some: pass one or the other.`,
    };
  }
  if (policy?.requireEvidence === true && acceptNoBuildEvidence) {
    return {
      kind: "usage_error",
      message:
        `The maintainers' policy file ${policy.source ?? `${POLICY_FILE} (read from the base branch)`} sets require-evidence: true, ` +
        `so ${spell.acceptName} is not allowed here: give ${spell.verifyCmdName} instead.`,
    };
  }
  if (verify.kind === "chosen") {
    return {
      kind: "answer",
      answer: { kind: "attached", command: verify.command, declaredBy: verify.declaredBy },
    };
  }
  if (acceptNoBuildEvidence) {
    return inputs.signals.length > 0
      ? { kind: "answer", answer: { kind: "declared", signals: inputs.signals } }
      : { kind: "answer", answer: { kind: "none-detected" } };
  }
  if (inputs.signals.length === 0 && policy?.requireEvidence === true) {
    // Without a verify command the run can end no better than `failure` under require-evidence (SPEC §5):
    // refused before anything is spent, rather than planned, run and failed.
    return {
      kind: "refused",
      signals: [],
      message:
        `The maintainers' policy file ${policy.source ?? `${POLICY_FILE} (read from the base branch)`} sets require-evidence: true, ` +
        `and no verify command was given, so this run could only fail: give ${spell.verifyCmdName}. Nothing was run and nothing was spent.`,
    };
  }
  if (inputs.signals.length === 0) {
    return { kind: "answer", answer: { kind: "none-detected" } };
  }
  return {
    kind: "refused",
    signals: inputs.signals,
    message: refusalMessage(inputs.signals, spell, inputs.repoDir),
  };
}

/** Most detected files the refusal names; the rest are counted (a monorepo may hold hundreds). */
export const MAX_NAMED_SIGNALS = 12;

/** The refusal text (SPEC §5): detected files and ecosystems, the two ways forward, nothing spent. */
function refusalMessage(signals: readonly BuildSignal[], spell: Spelling, root: string | undefined): string {
  const suggestion = suggestVerifyCommand(signals);
  const named = signals.slice(0, MAX_NAMED_SIGNALS).map((s) => `${s.file} (${s.ecosystem})`);
  const unnamed = signals.length - named.length;
  const detected = named.join(", ") + (unnamed > 0 ? `, and ${unnamed} more` : "");
  const nested = suggestion?.nested ?? null;
  const lines = [
    "This repository has a build system, and this run would check none of it.",
    `Detected: ${detected}.`,
    "A planned node may not carry a build command, and a node's PASS is only its own words about its own " +
      "work; build evidence is a command the engine runs itself and judges by its exit code.",
    "Re-run with ONE of:",
    `  ${spell.verifyCmd(suggestion?.command ?? "<your build and test command>")}` +
      " — the engine runs it at each sink of the plan, one at a time, and judges its exit code" +
      (suggestion?.guess ? " (the detected files suggest different commands, so this one is a guess)" : ""),
    ...(nested === null
      ? []
      : [
          `    (it runs the command in ${nested.folder}, where those build files are; or set ` +
            `${spell.workingDirectory(nested.folder, root)} with ${spell.verifyCmd(nested.command)}, ` +
            "which moves the whole run into that folder)",
        ]),
    `  ${spell.accept}` +
      " — run without build evidence, on the record: every verdict is then the model's, about its own work",
    "Nothing was run and nothing was spent: this was refused before the planner call.",
  ];
  return lines.join("\n");
}
