// B5 (issue 16): GitHub API writes per run (100 annotations, 20 nodes) against 3 + ⌈annotations / 50⌉ +
// throttled progress. Not built yet: the row says so (see the README's "Performance" section). The pieces
// exist — the local GitHub server (test/support/github-server) records every request, and
// src/github/check-annotations.ts marks up to 10 locations per failed row — so the bench is: 20 sinks
// under `continue-on-fail`, 10 of whose verify commands fail naming 10 `README.md:N:1` lines each, run by
// dist/index.js against that server, counting the check-run requests.
import { notMeasured } from "./lib/row.mjs";

notMeasured(
  "B5",
  "GitHub API writes per run, 100 annotations, 20 nodes",
  "3 + ⌈a/50⌉ + throttled progress",
  "bench not built yet (time box of issue 16's first pass)",
);
