#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  nodeIssue
} from "./cli-chunk-FMDVH7O5.js";

// src/graph/cwd-rules.ts
import { posix, win32 } from "node:path";
function placedNodesOf(data) {
  const nodes = isRecord(data) ? data.nodes : void 0;
  if (!Array.isArray(nodes)) return [];
  return nodes.flatMap((node, index) => {
    if (!isRecord(node)) return [];
    const check = isRecord(node.success_check) ? node.success_check : {};
    const verify = isRecord(check.verify) ? check.verify : {};
    return [
      {
        index,
        id: typeof node.id === "string" ? node.id : "",
        gate: node.type === "gate",
        cwd: nonEmptyText(node.cwd),
        verifyCwd: nonEmptyText(verify.cwd)
      }
    ];
  });
}
function cwdIssues(nodes) {
  const issues = [];
  for (const node of nodes) {
    if (node.gate) continue;
    const report = (reason) => {
      issues.push(nodeIssue(node, node.index, reason));
    };
    const { cwd, verifyCwd } = node;
    const cwdTemplated = cwd?.includes("{{") === true;
    let cwdOutside = false;
    if (cwd !== null && !cwdTemplated) {
      const problem2 = placementProblem("cwd", cwd, cwd);
      if (problem2 !== null) {
        report(problem2);
        cwdOutside = true;
      }
    }
    if (verifyCwd === null || verifyCwd.includes("{{")) continue;
    const absolute = isAbsolutePath(verifyCwd);
    if (!absolute && (cwdTemplated || cwdOutside)) continue;
    const base = absolute || cwd === null ? null : cwd;
    const problem = placementProblem(
      "success_check.verify.cwd",
      verifyCwd,
      base === null ? verifyCwd : posix.join(base, verifyCwd),
      base
    );
    if (problem !== null) report(problem);
  }
  return issues;
}
function isAbsolutePath(path) {
  return posix.isAbsolute(path) || win32.isAbsolute(path);
}
function placementProblem(field, written, joined, base = null) {
  const refused = 'the run fails the node with "\u2026 is outside the repository"';
  if (isAbsolutePath(written)) {
    return `${field} ${JSON.stringify(written)} is an absolute path; write it relative to the run's working directory \u2014 a node works inside the repository (${refused} otherwise), and an absolute path ties the graph to one machine's folders`;
  }
  const normal = posix.normalize(joined);
  if (normal !== ".." && !normal.startsWith("../")) return null;
  return `${field} ${JSON.stringify(written)} climbs out of the run's working directory (${base === null ? "" : `joined to the node's cwd ${JSON.stringify(base)}, `}it resolves to ${JSON.stringify(normal)}) \u2014 a node works inside the repository, and ${refused}; name a folder inside the working directory`;
}
function nonEmptyText(value) {
  return typeof value === "string" && value !== "" ? value : null;
}
function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export {
  placedNodesOf,
  cwdIssues
};
