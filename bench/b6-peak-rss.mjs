// B6 (issue 16): the engine's peak RSS while a node prints 200 MB and the verify command prints 200 MB,
// against the peak RSS of an idle run (the same graph printing nothing), measured in the same run.
//
//   node bench/b6-peak-rss.mjs          (BENCH_SCALE scales the 200 MB)
//
// The graph (built CLI, the bench's fake `claude`): one node whose CLI prints the bytes (lines of `y`)
// before its result, with a verify command that prints as many (`yes | head -c N`). Peak RSS is GNU
// time's `%M` (`/usr/bin/time -f %M`: the largest resident set of the process it ran, in KiB; here the
// engine, since the printers are `sh`, `yes` and `head`). Prints numbers; asserts nothing.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runGraph } from "./lib/cli.mjs";
import { benchRunFolder } from "./lib/fake-cli.mjs";
import { benchScale, emitRow, fixed, notMeasured } from "./lib/row.mjs";

const TIME = "/usr/bin/time";
const bytes = Math.round(200_000_000 * benchScale());
const measure = `peak RSS, node and verify each print ${fixed(bytes / 1e6)} MB`;

if (!existsSync(TIME)) {
  notMeasured("B6", measure, "≤ +150 MB", `${TIME} (GNU time) is not installed`);
} else {
  const scratch = mkdtempSync(join(tmpdir(), "eg-bench-b6-"));
  try {
    /** Peak RSS (MiB) of one run printing `n` bytes from the node and from its verify. */
    const peak = async (n) => {
      const dir = mkdtempSync(join(scratch, "run-"));
      const { repo, home, claude } = benchRunFolder(dir, { outputBytes: n });
      const verify = n > 0 ? `yes | head -c ${n}` : "true";
      const graph = {
        name: "b6",
        nodes: [{ id: "loud", prompt: "bench", success_check: { verify: { command: verify } } }],
      };
      const r = await runGraph({
        graph,
        repo,
        scratch: dir,
        claudePath: claude,
        home,
        wrap: [TIME, "-f", "B6-RSS %M"],
      });
      const kib = Number(/B6-RSS (\d+)/.exec(r.stderr)?.[1]);
      if (!Number.isFinite(kib)) throw new Error(`no RSS line from ${TIME}:\n${r.stderr.slice(-1000)}`);
      return { mib: kib / 1024, ms: r.ms, code: r.code };
    };
    const idle = await peak(0);
    const loud = await peak(bytes);
    const delta = loud.mib - idle.mib;
    console.log(
      `B6: idle run ${fixed(idle.mib)} MiB (${fixed(idle.ms)} ms, exit ${idle.code}); ${fixed(bytes / 1e6)} MB + ${fixed(bytes / 1e6)} MB run ${fixed(loud.mib)} MiB (${fixed(loud.ms)} ms, exit ${loud.code})`,
    );
    emitRow({
      id: "B6",
      measure,
      figure: `${fixed(loud.mib)} MiB (+${fixed(delta)} MiB)`,
      reference: `idle run ${fixed(idle.mib)} MiB`,
      goal: "≤ +150 MB",
      ratio: loud.mib / idle.mib,
      atGoal: delta * 1.048576 <= 150,
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
