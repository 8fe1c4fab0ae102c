#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  readGraphFile
} from "./cli-chunk-GQCNBO4X.js";
import {
  VERIFY_TIMEOUT,
  formatIssue,
  formatSplice,
  fragmentsBeside,
  loadGraphFile
} from "./cli-chunk-FMDVH7O5.js";
import {
  onePositional,
  parseFlags,
  parseOrExit,
  refuseUsage
} from "./cli-chunk-OU6P7TWF.js";
import "./cli-chunk-NJKI2YPK.js";
import {
  EXIT
} from "./cli-chunk-RGEBZGUA.js";
import "./cli-chunk-FXTLPJ5R.js";
import "./cli-chunk-Q4DFSTE5.js";
import "./cli-chunk-VKCPXAXI.js";

// src/cli/resolve-command.ts
import { resolve } from "node:path";
var RESOLVE_USAGE = `usage: evidence-gate resolve GRAPH [--verify-timeout D]

  GRAPH                 the graph file (YAML or JSON); each use: NAME is spliced from
                        fragments/NAME.yaml beside it, and the result printed as JSON
  --verify-timeout D    the largest success_check.verify.timeout the graph may declare, as for
                        run --verify-timeout (default 10m)

Exit: 0 printed, 1 the graph does not load (every problem on stderr), 64 usage error.
`;
function parseResolveFlags(argv) {
  return parseFlags(argv, { ...VERIFY_TIMEOUT.options }, true, (f, errors) => {
    const graph = onePositional(f, errors, {
      missing: "resolve needs the graph file to splice: evidence-gate resolve GRAPH",
      extra: (others) => `resolve prints one graph file; also got ${others}: resolve them one at a time`
    });
    return { graph, ...VERIFY_TIMEOUT.read(f, errors) };
  });
}
async function runCliResolve(argv, io) {
  const parsed = parseOrExit(argv, io, "resolve", RESOLVE_USAGE, parseResolveFlags);
  if ("exit" in parsed) return parsed.exit;
  const { graph, verifyTimeoutMs } = parsed.flags;
  const path = resolve(io.cwd, graph);
  const read = readGraphFile(path, graph);
  if (!read.ok) return refuseUsage(io, "resolve", [read.error]);
  const loaded = await loadGraphFile(read.text, graph, fragmentsBeside(path, graph), {
    ...verifyTimeoutMs !== void 0 ? { verifyTimeoutCeilingMs: verifyTimeoutMs } : {}
  });
  if (!loaded.ok) {
    const n = loaded.issues.length;
    io.err.write(
      `${[...loaded.issues.map(formatIssue), `${n} ${n === 1 ? "error" : "errors"}: ${graph} does not load`].join("\n")}
`
    );
    return EXIT.failed;
  }
  for (const splice of loaded.splices) io.err.write(`${formatSplice(splice)}
`);
  io.out.write(`${JSON.stringify(loaded.graph.spec, null, 2)}
`);
  return EXIT.passed;
}
export {
  RESOLVE_USAGE,
  parseResolveFlags,
  runCliResolve
};
