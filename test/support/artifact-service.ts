/**
 * A local stand-in for the runner's artifact service (what `@actions/artifact` uploads to) and a reader of
 * the zips it receives, for the action's tests, bundled (`action-harness.ts`) or in-process
 * (`action-in-process.ts`).
 */

/** One artifact the stand-in artifact service received. */
export interface UploadedArtifact {
  readonly name: string;
  /** The zip as uploaded (blocks committed in order). */
  readonly zip: Buffer;
  readonly finalized: boolean;
  readonly id: number;
}

/**
 * A local stand-in for the runner's artifact service (the Twirp "results" API and the blob store that
 * `@actions/artifact` talks to): `CreateArtifact` answers a signed upload URL on this server, blocks and
 * the block list are stored, `FinalizeArtifact` answers an id. Point the action at it with
 * {@link ArtifactService.env}. Requests without the runtime token are refused with 401.
 */
export interface ArtifactService {
  readonly url: string;
  readonly artifacts: UploadedArtifact[];
  /** `ACTIONS_RUNTIME_TOKEN` (a JWT with the `Actions.Results` scope) and `ACTIONS_RESULTS_URL`. */
  readonly env: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

const TWIRP = "/twirp/github.actions.results.api.v1.ArtifactService/";

export async function startArtifactService(): Promise<ArtifactService> {
  const { createServer } = await import("node:http");
  const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const token = `${b64url({ alg: "none", typ: "JWT" })}.${b64url({
    scp: "Actions.GenericRead:run Actions.Results:run-backend-id:job-backend-id",
  })}.c2lnbmF0dXJl`;
  const artifacts: UploadedArtifact[] = [];
  const blobs = new Map<string, { blocks: Map<string, Buffer>; data: Buffer | null }>();
  let nextId = 100;
  let url = "";
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const at = new URL(req.url ?? "/", url);
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(value));
      };
      if (req.method === "POST" && at.pathname.startsWith(TWIRP)) {
        if (req.headers.authorization !== `Bearer ${token}`) return json(401, { code: "unauthenticated" });
        const request = JSON.parse(body.toString("utf8")) as { name: string; size?: string };
        const method = at.pathname.slice(TWIRP.length);
        if (method === "CreateArtifact") {
          blobs.set(request.name, { blocks: new Map(), data: null });
          return json(200, {
            ok: true,
            signedUploadUrl: `${url}/devstoreaccount1/artifacts/${encodeURIComponent(request.name)}.zip?sig=test-signature`,
          });
        }
        if (method === "FinalizeArtifact") {
          const blob = blobs.get(request.name);
          if (blob?.data == null) return json(400, { code: "failed_precondition", msg: "nothing uploaded" });
          const id = nextId++;
          artifacts.push({ name: request.name, zip: blob.data, finalized: true, id });
          return json(200, { ok: true, artifactId: String(id) });
        }
        return json(404, { code: "bad_route", msg: method });
      }
      const blobMatch = /^\/devstoreaccount1\/artifacts\/(.+)\.zip$/.exec(at.pathname);
      if (req.method === "PUT" && blobMatch !== null) {
        if (at.searchParams.get("sig") !== "test-signature") {
          res.writeHead(403).end();
          return;
        }
        const blob = blobs.get(decodeURIComponent(blobMatch[1]!));
        if (blob === undefined) {
          res.writeHead(404).end();
          return;
        }
        const comp = at.searchParams.get("comp");
        if (comp === "block") blob.blocks.set(at.searchParams.get("blockid") ?? "", body);
        else if (comp === "blocklist") {
          const ids = [...body.toString("utf8").matchAll(/<(?:Latest|Uncommitted|Committed)>([^<]*)</g)].map(
            (m) => m[1]!,
          );
          blob.data = Buffer.concat(ids.map((id) => blob.blocks.get(id) ?? Buffer.alloc(0)));
        } else blob.data = body;
        res.writeHead(201, {
          etag: '"0x8D000000000000"',
          "last-modified": new Date().toUTCString(),
          "x-ms-request-id": "00000000-0000-0000-0000-000000000000",
          "x-ms-version": "2025-01-05",
          "x-ms-request-server-encrypted": "true",
        });
        res.end();
        return;
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    artifacts,
    env: { ACTIONS_RUNTIME_TOKEN: token, ACTIONS_RESULTS_URL: `${url}/` },
    close: () =>
      new Promise((done, fail) => {
        server.closeAllConnections();
        server.close((e) => (e ? fail(e) : done()));
      }),
  };
}

/** The files of a zip archive, name → content (stored or deflated entries, read from the central directory). */
export async function readZip(zip: Buffer): Promise<Map<string, Buffer>> {
  const { inflateRawSync } = await import("node:zlib");
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd === -1) throw new Error("not a zip: no end of central directory");
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error("zip: bad central directory entry");
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localOffset = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    const localData =
      localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
    const data = zip.subarray(localData, localData + compressedSize);
    if (!name.endsWith("/")) files.set(name, method === 0 ? Buffer.from(data) : inflateRawSync(data));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}
