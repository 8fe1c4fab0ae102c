#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  describeIgnoredChanges,
  describeOutsideWrites,
  evidenceGapParts,
  receiptWords,
  shownCommand,
  verifyExitWords
} from "./cli-chunk-65TFX77S.js";
import {
  unreachable
} from "./cli-chunk-Q4DFSTE5.js";

// src/ledger/conclusion-words.ts
var PATCH_NOT_ON_COMMIT = "the evidence is for a patch that is not on this commit";
function countNodes(n) {
  return `${n} ${n === 1 ? "node" : "nodes"}`;
}
function quoteList(ids) {
  return ids.map((id) => `"${id}"`).join(", ");
}

// src/ledger/judge-failures.ts
function judgeFailures(rows) {
  const failedVerifies = rows.filter(
    (row, i) => row.verify !== void 0 && row.verify.outcome !== "passed" && counts(rows, i)
  );
  const failedSinkVerifies = failedVerifies.filter((row) => row.sink);
  if (failedSinkVerifies.length > 0) {
    const first = failedSinkVerifies[0];
    const verify = first.verify;
    return {
      conclusion: "failure",
      outcome: "failed",
      rule: "sink-verify-failed",
      title: `Failed: sink ${first.nodeId} failed its verify command`,
      reason: `The engine ran "${shownCommand(verify.command)}" for sink "${first.nodeId}" and it ${verify.repeat !== void 0 && verify.repeat.passed > 0 ? "was " : ""}${verifyExitWords(verify)}. A sink that fails its verification fails the run.`
    };
  }
  const failedRows = rows.filter((row, i) => row.verdict === "FAIL" && counts(rows, i));
  const failedIds = [...new Set([...failedRows, ...failedVerifies].map((row) => row.nodeId))];
  if (failedIds.length === 0) return null;
  const causes = [...new Set(failedRows.map((row) => row.cause))];
  return {
    conclusion: "failure",
    outcome: "failed",
    rule: "node-failed",
    title: failedIds.length === 1 ? `Failed: node ${failedIds[0]} failed` : `Failed: ${failedIds.length} nodes failed`,
    reason: `${quoteList(failedIds)} failed${causes.length > 0 ? ` (${causes.join(", ")})` : ""}. Any node FAIL fails the run.`
  };
}
function lastRowByNode(rows) {
  const last = /* @__PURE__ */ new Map();
  for (const row of rows) last.set(row.nodeId, row);
  return last;
}
function counts(rows, i) {
  const row = rows[i];
  const replaceable = row.verdict !== "FAIL" || row.superseded === true;
  return !(replaceable && hasLaterRow(rows, i));
}
function hasLaterRow(rows, i) {
  const nodeId = rows[i].nodeId;
  return rows.slice(i + 1).some((later) => later.nodeId === nodeId);
}

// src/ledger/require-evidence.ts
function neutralOrFailure(requireEvidence, decision) {
  if (!requireEvidence) return { conclusion: "neutral", outcome: "passed", ...decision };
  return {
    conclusion: "failure",
    outcome: "failed",
    rule: decision.rule,
    title: `Failed (require-evidence): ${decision.title}`,
    reason: `${decision.reason} The maintainers' policy file (.github/evidence-gate.yml) sets require-evidence: true, so a run without engine-run evidence on every non-gate sink fails.`
  };
}

// src/ledger/judge-verified-sinks.ts
function judgeVerifiedSinks(sinks) {
  const { input, last, verified } = sinks;
  const inWorktree = verified.flatMap((id) => {
    const tree = last.get(id)?.worktree;
    return tree === void 0 ? [] : [`sink "${id}": worktree ${tree.name}, branch ${tree.branch}`];
  });
  if (inWorktree.length > 0) {
    return {
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-in-worktree",
      title: "Verified, but in a worktree: the evidence is for a branch, not this commit",
      reason: `Every sink was verified, but ${inWorktree.length === 1 ? "a sink" : "sinks"} ran in a managed worktree (${inWorktree.join("; ")}): the verify command ran on that branch's files, not on the main working tree or this commit. Merge the branch (or check it out) and verify it, or re-run with the sinks in the main working tree.`
    };
  }
  const required = judgeReceipts(sinks, "required");
  if (required !== null) return required;
  const trees = verified.map((id) => last.get(id)?.verify?.evidenceTree ?? null);
  const offCommit = input.postedCommitTree !== null && trees.some((tree) => tree !== null && tree !== input.postedCommitTree);
  const definition = verifyDefinitionChanged(input, offCommit);
  if (definition !== null) return definition;
  const beyond = bytesBeyondTheTree(sinks, offCommit);
  if (beyond !== null) return beyond;
  const observed = judgeReceipts(sinks, "observed");
  if (observed !== null) return observed;
  if (input.postedCommitTree === null || trees.some((tree) => tree === null)) {
    return neutralOrFailure(input.requireEvidence, {
      rule: "verified-tree-unknown",
      title: `Verified, but the tree is unknown (${countNodes(last.size)} passed)`,
      reason: "Every sink was verified, but the verified tree could not be compared with the posted commit's tree, so the evidence cannot be tied to this commit."
    });
  }
  const distinctTrees = [...new Set(trees.filter((tree) => tree !== null))];
  if (distinctTrees.length > 1) {
    const which = verified.map((id) => `sink "${id}": ${(last.get(id)?.verify?.evidenceTree ?? "unknown").slice(0, 12)}`).join("; ");
    return {
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-different-trees",
      title: "Verified, but the sinks verified different trees",
      reason: `Each sink's verify passed on the files it saw, but the sinks saw different files (${which}): nodes changed files between the verifies, so no single tree passed every sink's verify and the final files were not verified as a whole. Do not push the patch as it is; re-run so that every sink verifies the same files.`
    };
  }
  if (offCommit) {
    return {
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-off-commit",
      title: "Verified, but not on this commit",
      reason: `Every sink was verified, but ${PATCH_NOT_ON_COMMIT}: the tree the verify command ran on differs from this commit's tree (files changed during the run, or uncommitted before it, or sinks that verified different trees). ${offCommitAdvice(input.rows)}`
    };
  }
  const ignoredUnknown = verified.filter((id) => last.get(id)?.verify?.ignoredFiles === "unknown");
  if (ignoredUnknown.length > 0) {
    const why = [
      ...new Set(ignoredUnknown.map((id) => last.get(id)?.verify?.ignoredFilesReason ?? "unknown reason"))
    ].join("; ");
    return neutralOrFailure(input.requireEvidence, {
      rule: "verified-ignored-files-unknown",
      title: `Verified, but the git-ignored files could not be compared (${countNodes(last.size)} passed)`,
      reason: `Every sink was verified on this commit's tree, but the git-ignored files the verify command may read could not be compared with the run's start (${why}), so the evidence cannot be shown to rest on this commit alone.`
    });
  }
  const executions = input.rows.length;
  return {
    conclusion: "success",
    outcome: "passed",
    rule: "verified-on-commit",
    title: `Verified: ${countNodes(last.size)} passed, ${verified.length} ${verified.length === 1 ? "sink" : "sinks"} verified on this commit`,
    reason: `Every node passed (${executions} ${executions === 1 ? "execution" : "executions"}) and the engine ran the verify command of every non-gate sink on this commit's tree.`
  };
}
var VERIFY_RUN_LABEL = "verify (engine)";
function offCommitAdvice(rows) {
  if (rows.length > 0 && rows.every((row) => row.label === VERIFY_RUN_LABEL)) {
    return "Commit (or stash) the uncommitted changes and run `evidence-gate verify` again, so the verify command runs on this commit's tree.";
  }
  return "Commit the patch and verify that commit (`evidence-gate run --commit` or `auto --commit` does both when HEAD does not move during the run; the action's push: true pushes it), or re-run on a commit that contains it.";
}
var FLAGGED_NAMED = 10;
function verifyDefinitionChanged(input, offCommit) {
  const record = input.changedFiles;
  if (record === void 0 || record.verifyDefinition.length === 0) return null;
  const named = record.verifyDefinition.slice(0, FLAGGED_NAMED).map((change) => `${change.path}: ${change.detail}`);
  const more = record.flaggedTotal - named.length;
  const list = `${named.join("; ")}${more > 0 ? `; and ${more} more` : ""}`;
  const data = record.verifyDefinition.some((c) => c.kind === "test-data" || c.kind === "named-by-test");
  return {
    conclusion: "action_required",
    outcome: "passed",
    rule: "verify-definition-changed",
    title: data ? "Verified, but the nodes changed what the tests compare against" : "Verified, but the nodes changed what the verify command runs",
    reason: `Every sink's verify passed, but the nodes changed what defines it (${list}). A passing verify then shows only that the changed definition passes, not that the build and tests it ran before still pass (a script replaced by "true" passes on anything). ` + (data ? "A test's data (a fixture, snapshot, golden file, or a file a test reads) changed too: a test then passes when its expected values were changed to match the code, not the code fixed. " : "") + "A reviewer must read these changes and confirm they keep every build step and test running (no script emptied or pointed elsewhere, no test deleted, renamed away or skipped, no expected value changed to match the code), then verify again; --commit and the action's push leave such changes uncommitted (patch.diff)." + (offCommit ? ` Besides, ${PATCH_NOT_ON_COMMIT}.` : "")
  };
}
function bytesBeyondTheTree(sinks, offCommit) {
  const { input, last, verified } = sinks;
  const besides = offCommit ? ` Besides, ${PATCH_NOT_ON_COMMIT}.` : "";
  const ignoredChanged = verified.filter((id) => last.get(id)?.verify?.ignoredFiles === "changed");
  const outside = outsideWritesOf(input.rows);
  const outsideSentence = outside === null ? "" : `A node wrote outside the repository; the evidence tree does not cover those files (${outside}).`;
  if (ignoredChanged.length > 0) {
    const which = ignoredChanged.map((id) => `sink "${id}": ${describeIgnoredChanges(last.get(id)?.verify?.ignoredFilesChanges)}`).join("; ");
    return {
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-ignored-files-changed",
      title: "Verified, but git-ignored files changed",
      reason: `Every sink was verified, but the verify command ran with git-ignored files changed since the run started (${which}). The evidence covers git-ignored files that are on no commit, so this commit may not pass on a fresh clone. Undo those changes, or make them in tracked files, and re-run.` + besides + (outside !== null ? ` ${outsideSentence}` : "")
    };
  }
  if (outside !== null) {
    return {
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-outside-writes",
      title: "Verified, but a node wrote outside the repository",
      reason: `Every sink was verified, but ${outsideSentence.charAt(0).toLowerCase()}${outsideSentence.slice(1)} The verify command may pass only because of them, so this commit may not pass on a fresh clone. Undo those writes, or make the change inside the repository, and re-run.` + besides
    };
  }
  const gaps = verified.flatMap((id) => {
    const parts = evidenceGapParts(last.get(id)?.verify);
    return parts.length === 0 ? [] : [`sink "${id}": ${parts.join("; ")}`];
  });
  if (gaps.length === 0) return null;
  return {
    conclusion: "action_required",
    outcome: "passed",
    rule: "verified-bytes-not-in-tree",
    title: "Verified, but on bytes the evidence tree does not hold",
    reason: `Every sink was verified, but the verify ran on bytes the evidence tree does not hold: ${gaps.join("; ")}. The tree recorded for the verify is not what the command ran on, so this commit may not pass on a fresh clone. For a submodule: commit (and push) its changes and record them in the superproject. For a file a .gitattributes conversion hides: write it in the form the conversion produces (or fix the attribute), commit it, and re-run. For files the verify command changed while it ran: make the command leave tracked files alone (\`npm ci\`, not \`npm install\`; no formatter or snapshot update in the verify) or commit what it writes, and re-run. Or undo the edits and re-run.` + besides
  };
}
function outsideWritesOf(rows) {
  const named = rows.filter((row) => row.outsideWrites !== void 0 && row.outsideWrites.total > 0).map((row) => `node "${row.nodeId}": ${describeOutsideWrites(row.outsideWrites)}`);
  return named.length > 0 ? [...new Set(named)].join("; ") : null;
}
function judgeReceipts(sinks, which) {
  const { last, verified } = sinks;
  const required = [];
  const noTest = [];
  const failing = [];
  for (const id of verified) {
    const verify = last.get(id)?.verify;
    const receipt = verify?.receipt;
    if (verify?.testsRequired === true && (receipt === void 0 || receipt.kind === "none" || receipt.ran === 0)) {
      required.push(
        `sink "${id}": ${receipt === void 0 || receipt.kind === "none" ? `no test receipt (${receipt?.reason ?? "none recorded"})` : receiptWords(receipt)}`
      );
    } else if (receipt?.kind === "counts" && receipt.ran === 0) {
      noTest.push(`sink "${id}": ${receiptWords(receipt)}`);
    } else if (receipt?.kind === "counts" && receipt.failed > 0 && verify?.expectExit === 0) {
      failing.push(`sink "${id}": ${receiptWords(receipt)}`);
    }
  }
  if (which === "required") {
    if (required.length === 0) return null;
    return {
      conclusion: "failure",
      outcome: "failed",
      rule: "tests-required",
      title: "Failed (require-tests): a verify ran no test the engine could see",
      reason: `The maintainers' policy file (.github/evidence-gate.yml) sets require-tests: true, and ${required.join("; ")}. A verify counts as evidence only when a recognised test runner (or a test report the command wrote, test-reports) shows at least one test ran. Make the verify command run the tests, or name the report files it writes in test-reports.`
    };
  }
  if (noTest.length > 0) {
    return {
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-no-test",
      title: "Verified, but the verify command ran no test",
      reason: `The verify command exited as expected, but its test runner reported that no test ran (${noTest.join("; ")}): test files moved, a filter that matches nothing, or a runner pointed at the wrong folder all look like this, and a command that tests nothing is no evidence that the change works. Make the command run the tests and verify again.`
    };
  }
  if (failing.length > 0) {
    return {
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-failing-tests",
      title: "Verified, but the test runner reported failing tests",
      reason: `The verify command exited as expected, but its test runner reported failing tests (${failing.join("; ")}): the command ignores its tests' result (an "|| true", a runner told not to fail). Fix the tests, or make the command fail when they fail, and verify again.`
    };
  }
  return null;
}

// src/ledger/judge-completed-run.ts
function judgeCompletedRun(input) {
  const failed = judgeFailures(input.rows);
  if (failed !== null) return failed;
  const last = lastRowByNode(input.rows);
  const notPassed = [.../* @__PURE__ */ new Set([...last.keys(), ...input.sinks])].filter(
    (id) => last.get(id)?.verdict !== "PASS"
  );
  if (notPassed.length > 0) {
    return {
      conclusion: "failure",
      outcome: "failed",
      rule: "node-did-not-run",
      title: `Failed: ${countNodes(notPassed.length)} did not run`,
      reason: `The run ended without a PASS for ${quoteList(notPassed)}; a run that did not finish its graph cannot pass.`
    };
  }
  const gates = new Set(input.gateSinks);
  const checkedSinks = input.sinks.filter((id) => !gates.has(id));
  if (checkedSinks.length === 0) {
    return neutralOrFailure(input.requireEvidence, {
      rule: "only-gate-sinks",
      title: `Unverified: every sink is a gate (${countNodes(last.size)} passed)`,
      reason: "Every sink of the graph is a gate: a person's approval, not build evidence. Nothing was verified."
    });
  }
  const verified = checkedSinks.filter((id) => {
    const row = last.get(id);
    return row?.verdict === "PASS" && row.qualifier === "verified";
  });
  if (verified.length === 0) {
    return neutralOrFailure(input.requireEvidence, {
      rule: "no-engine-evidence",
      title: `Unverified: ${countNodes(last.size)} passed with no build evidence`,
      reason: `${noEvidenceReason(input.buildEvidence)} Every PASS below is the model's, about its own work.`
    });
  }
  if (verified.length < checkedSinks.length) {
    const unverified = checkedSinks.filter((id) => !verified.includes(id));
    return neutralOrFailure(input.requireEvidence, {
      rule: "partially-verified",
      title: `Partly verified: ${verified.length} of ${checkedSinks.length} sinks verified`,
      reason: `Sinks ${quoteList(unverified)} passed without an engine-run verify command; success needs every non-gate sink verified.`
    });
  }
  return judgeVerifiedSinks({ input, last, verified });
}
function noEvidenceReason(answer) {
  switch (answer.kind) {
    case "declared":
      return `The operator declared no build evidence (accept-no-build-evidence) although ${answer.signals.map((s) => s.file).join(", ")} ${answer.signals.length === 1 ? "says" : "say"} this repository builds.`;
    case "none-detected":
      return "No build signal was detected and no verify command was given.";
    case "attached":
      return `A verify command ("${shownCommand(answer.command)}") was attached, but no sink was verified with it.`;
    case "graph":
      return answer.verifiedSinks.length === 0 ? "No sink of the hand-written graph has a success_check.verify or completion.verify command, so the engine ran no build." : "The hand-written graph's verify commands did not verify any sink.";
    default:
      return unreachable(answer);
  }
}

// src/ledger/conclusion.ts
function decideEndWithoutRows(end) {
  return decideConclusion({
    rows: [],
    sinks: [],
    gateSinks: [],
    buildEvidence: { kind: "none-detected" },
    postedCommitTree: null,
    requireEvidence: false,
    end
  });
}
function decideConclusion(input) {
  const { end } = input;
  switch (end.kind) {
    case "completed":
      return judgeCompletedRun(input);
    case "refused":
      return {
        conclusion: "action_required",
        outcome: "refused",
        rule: "refused",
        title: refusalTitle(end.reason),
        reason: `${end.message} Nothing ran and nothing was spent.`
      };
    case "usage-error":
      return {
        conclusion: "action_required",
        outcome: "usage-error",
        rule: "usage-error",
        title: "Usage error: nothing ran",
        reason: `${end.message} Nothing ran.`
      };
    case "plan-refused":
      return {
        conclusion: "failure",
        outcome: "failed",
        rule: "plan-refused",
        title: "Failed: the plan was refused twice",
        reason: `The planner's graph broke the planned-node rules after one repair: ${end.refusals.join("; ")}. No node ran.`
      };
    case "planning-failed":
      return {
        conclusion: "failure",
        outcome: "failed",
        rule: "planning-failed",
        title: "Failed: planning failed (no usable plan)",
        reason: `Planning failed: ${end.message.replace(/\.$/, "")}.${credentialHint(end.message)} No node ran.`
      };
    case "setup-failed":
      return {
        conclusion: "failure",
        outcome: "failed",
        rule: "setup-failed",
        title: "Failed: the model CLI could not be installed",
        reason: `${end.message} Nothing ran and nothing was spent. This is the runner's environment (the network, the npm registry), not your inputs: run the job again once the registry is reachable, or give the runner a tool cache that holds the CLI.`
      };
    case "engine-error":
      return {
        conclusion: "failure",
        outcome: "failed",
        rule: "engine-error",
        title: "Failed: engine error",
        reason: `The engine stopped with an error: ${end.message}`
      };
    case "paused":
      return decidePaused(input, end);
    case "cancelled":
      return {
        conclusion: "cancelled",
        outcome: "cancelled",
        rule: "cancelled",
        title: "Cancelled",
        reason: "The run was cancelled (the workflow was cancelled, or the CLI was interrupted) before it finished; the ledger's rows are what had finished."
      };
    case "abandoned":
      return {
        conclusion: "failure",
        outcome: "failed",
        rule: "abandoned",
        title: "Failed: the run was abandoned",
        reason: "The run ended without finishing its check run (the main step died); the ledger's rows are what had finished."
      };
    case "timed-out":
      return {
        conclusion: "timed_out",
        outcome: "timed-out",
        rule: "timed-out",
        title: `Timed out after ${end.limit}`,
        reason: `The run reached its time bound (${end.setting} ${end.limit}) and was stopped: every running node's processes were killed; the ledger's rows are what had finished.`
      };
    default:
      return unreachable(end);
  }
}
function credentialHint(message) {
  return /invalid api key|please run \/login|authentication_error|\b401\b|unauthorized/i.test(message) ? " The model API refused the credential: check the model key (the CLI: ANTHROPIC_API_KEY, OPENAI_API_KEY; the action: anthropic-api-key, claude-code-oauth-token, openai-api-key)." : "";
}
function refusalTitle(reason) {
  switch (reason) {
    case "build-evidence":
      return "Refused: this repository builds, and no verify command was given";
    case "no-credential":
      return "Refused: no model credential and no verify command";
    case "unsupported-trigger":
      return "Refused: unsupported trigger";
    case "head-moved":
      return "Refused: the pull request's head moved";
    case "checkout-not-head":
      return "Refused: the checkout is not the commit the event names";
    case "fork-unapproved":
      return "Refused: a fork's pull request needs a writer's approval at its head, and no verify command was given";
    default:
      return unreachable(reason);
  }
}
function decidePaused(input, end) {
  const failed = judgeFailures(input.rows);
  if (failed !== null) return failed;
  switch (end.reason) {
    case "gate":
      return {
        conclusion: "action_required",
        outcome: "paused",
        rule: "paused",
        title: `Paused at gate ${end.nodeId}`,
        reason: `The run is waiting for a person to approve or reject gate "${end.nodeId}"; resume the run with the decision.`
      };
    case "session-limit":
      return {
        conclusion: "action_required",
        outcome: "paused",
        rule: "paused",
        title: "Paused: model session limit reached",
        reason: `Node "${end.nodeId}" hit the model's session limit; resume with --retry-failed once the limit resets to finish exactly the work that never ran.`
      };
    default:
      return unreachable(end.reason);
  }
}

export {
  decideEndWithoutRows,
  decideConclusion
};
