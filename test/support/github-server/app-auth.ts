/**
 * GitHub App authentication, as GitHub checks it (https://docs.github.com/apps/creating-github-apps/authenticating-with-a-github-app):
 *
 * - `/app/…` routes take the App's JWT (`Authorization: Bearer <jwt>`): RS256, signed by the App's private
 *   key — verified here against the test App's **public** key —, `iss` the App id, `iat` not in the future
 *   (60 s of clock drift allowed), `exp` in the future and at most 10 minutes after `iat`;
 * - `POST /app/installations/{installation_id}/access_tokens` exchanges the JWT for an installation token
 *   (`ghs_…`, one hour), for the one installation the double knows;
 * - every other route takes an installation token the double issued (`Authorization: token ghs_…`).
 *
 * A request that breaks a rule is answered 401 and recorded as an `auth` violation.
 */
import { createPublicKey, randomBytes, verify } from "node:crypto";

export interface AppAuthOptions {
  readonly appId: number;
  /** PEM of the App's public key (the test keeps the private half for the bot). */
  readonly publicKey: string;
  readonly installationId: number;
  /**
   * Other tokens accepted on repository routes: a workflow's `GITHUB_TOKEN` (the action's own calls, made
   * with the `github-actions` app's token, reach the same GitHub).
   */
  readonly otherTokens?: readonly string[];
}

export interface IssuedToken {
  readonly token: string;
  readonly installationId: number;
  readonly expiresAt: Date;
}

function b64urlJson(part: string): unknown {
  return JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
}

export class AppAuth {
  readonly options: AppAuthOptions;
  readonly tokens: IssuedToken[] = [];
  /** JWTs that passed, in order (their count shows token caching). */
  jwtRequests = 0;
  readonly #key;

  constructor(options: AppAuthOptions) {
    this.options = options;
    this.#key = createPublicKey(options.publicKey);
  }

  /** Why `authorization` is not a valid App JWT, or `null` when it is. */
  jwtProblem(authorization: string | undefined, now = Date.now()): string | null {
    const jwt = /^bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
    if (jwt === undefined) return "an /app route needs the App's JWT (Authorization: Bearer …)";
    const parts = jwt.split(".");
    if (parts.length !== 3) return "the JWT does not have three parts";
    const [head, body, signature] = parts as [string, string, string];
    let header: { alg?: unknown };
    let claims: { iat?: unknown; exp?: unknown; iss?: unknown };
    try {
      header = b64urlJson(head) as typeof header;
      claims = b64urlJson(body) as typeof claims;
    } catch {
      return "the JWT's header or claims are not base64url JSON";
    }
    if (header.alg !== "RS256") return `the JWT's alg is ${String(header.alg)}, not RS256`;
    const ok = verify(
      "RSA-SHA256",
      Buffer.from(`${head}.${body}`),
      this.#key,
      Buffer.from(signature, "base64url"),
    );
    if (!ok) return "the JWT's signature does not verify against the App's public key";
    if (String(claims.iss) !== String(this.options.appId))
      return `the JWT's iss is ${String(claims.iss)}, not the App id`;
    const seconds = Math.floor(now / 1000);
    if (typeof claims.iat !== "number" || claims.iat > seconds + 60)
      return "the JWT's iat is missing or in the future";
    if (typeof claims.exp !== "number" || claims.exp <= seconds) return "the JWT has expired";
    if (claims.exp - claims.iat > 600) return "the JWT's exp is more than 10 minutes after its iat";
    this.jwtRequests += 1;
    return null;
  }

  /** A new installation token for `installationId` (one hour). */
  issue(installationId: number, now = Date.now()): IssuedToken {
    const token = {
      token: `ghs_${randomBytes(18).toString("hex")}`,
      installationId,
      expiresAt: new Date(now + 3_600_000),
    };
    this.tokens.push(token);
    return token;
  }

  /** Why `authorization` is not a valid installation token, or `null`. */
  tokenProblem(authorization: string | undefined, now = Date.now()): string | null {
    const given = /^(?:token|bearer)\s+(\S+)$/i.exec(authorization ?? "")?.[1];
    if (given === undefined) return "no Authorization header";
    if (this.options.otherTokens?.includes(given) === true) return null;
    const issued = this.tokens.find((t) => t.token === given);
    if (issued === undefined) return "not an installation token this server issued";
    if (issued.expiresAt.getTime() <= now) return "the installation token has expired";
    return null;
  }
}
