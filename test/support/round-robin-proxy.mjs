// A round-robin HTTP proxy on loopback (a load balancer without affinity) in its own process, so the time it
// measures is the bot replicas' answer and not the wait of a busy test process: `node round-robin-proxy.mjs
// URL...` prints `{"kind":"listening","url":…}` once, then one line per request it answered:
// `{"kind":"answer","guid":…,"replica":<index>,"status":<code>,"ms":<from request received to answer sent>}`.
// A replica that refuses the connection (dead) is skipped for the next; one that dies after the request was
// sent makes the answer 502, as a load balancer answers (GitHub then records the delivery failed).
import { createServer, request } from "node:http";

const upstreams = process.argv.slice(2).map((u) => new URL(u));
let next = 0;
const server = createServer((req, res) => {
  const started = performance.now();
  const guid = String(req.headers["x-github-delivery"] ?? "");
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    const answer = (replica, status, headers, text) => {
      if (!res.headersSent) res.writeHead(status, headers);
      res.end(text);
      const ms = Math.round((performance.now() - started) * 10) / 10;
      process.stdout.write(`${JSON.stringify({ kind: "answer", guid, replica, status, ms })}\n`);
    };
    const attempt = (tries) => {
      const index = next++ % upstreams.length;
      const target = upstreams[index];
      const forward = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, connection: "close" },
        },
        (upstream) => {
          const parts = [];
          upstream.on("data", (c) => parts.push(c));
          upstream.on("end", () =>
            answer(index, upstream.statusCode ?? 502, upstream.headers, Buffer.concat(parts)),
          );
          upstream.on("error", () => answer(index, 502, { "content-type": "text/plain" }, "bad gateway"));
        },
      );
      forward.on("error", (error) => {
        if (error.code === "ECONNREFUSED" && tries < upstreams.length) return attempt(tries + 1);
        answer(index, 502, { "content-type": "text/plain" }, "bad gateway");
      });
      forward.end(body);
    };
    attempt(1);
  });
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(
    `${JSON.stringify({ kind: "listening", url: `http://127.0.0.1:${server.address().port}` })}\n`,
  );
});
