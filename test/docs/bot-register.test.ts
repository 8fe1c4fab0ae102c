/**
 * docs/bot.md "Register the App" gives an operator what registering the App from `app.yml` takes (operator
 * trial, issue 23: the manifest flow did not say to replace `app.yml`'s placeholder addresses first, so the App
 * would have sent its deliveries to `evidence-gate.example.com`, nor where to install the App): each manifest
 * field holding a placeholder, GitHub's manifest URLs (user and organisation), the code exchange, the install
 * URL, which answer field is which variable — and the permissions and events exactly as `app.yml` has them.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

interface Manifest {
  readonly name: string;
  readonly url: string;
  readonly redirect_url: string;
  readonly hook_attributes: { readonly url: string };
  readonly default_permissions: Record<string, string>;
  readonly default_events: readonly string[];
}

const manifest = parse(readFileSync(join(REPO, "app.yml"), "utf8")) as Manifest;

/** The "## Register the App" section, up to the next `##` heading, its line breaks as spaces (prose wraps). */
function registerSection(): string {
  const doc = readFileSync(join(REPO, "docs", "bot.md"), "utf8");
  const start = doc.indexOf("\n## Register the App\n");
  expect(start).toBeGreaterThan(0);
  const end = doc.indexOf("\n## ", start + 1);
  return doc.slice(start, end === -1 ? undefined : end).replace(/\s+/g, " ");
}

/** GitHub's words for a manifest permission key (`pull_requests` → `Pull requests`). */
function permissionWords(key: string): string {
  const words = key.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

describe("docs/bot.md: registering the App from app.yml", () => {
  it("says which manifest fields hold placeholders to replace first, and the placeholder host", () => {
    const section = registerSection();
    const placeholderHost = new URL(manifest.hook_attributes.url).host;
    expect(new URL(manifest.redirect_url).host).toBe(placeholderHost);
    for (const field of ["hook_attributes.url", "redirect_url", "url", "name"]) {
      expect(section).toContain(`\`${field}\``);
    }
    expect(section).toContain(placeholderHost);
    expect(section).toMatch(/Edit `app\.yml` first/);
  });

  it("names GitHub's manifest URLs, the code exchange, the install URL, and which answer field is which variable", () => {
    const section = registerSection();
    for (const address of [
      "https://github.com/settings/apps/new",
      "https://github.com/organizations/ORG/settings/apps/new",
      "https://api.github.com/app-manifests/CODE/conversions",
      "https://github.com/apps/SLUG/installations/new",
    ]) {
      expect(section).toContain(address);
    }
    expect(section).toContain('name="manifest"');
    for (const [field, variable] of [
      ["id", "APP_ID"],
      ["pem", "PRIVATE_KEY"],
      ["webhook_secret", "WEBHOOK_SECRET"],
    ]) {
      expect(section).toContain(`\`${field}\` (\`${variable}\``);
    }
  });

  it("lists the permissions and events exactly as app.yml has them", () => {
    const section = registerSection();
    const permissions = Object.entries(manifest.default_permissions);
    expect(permissions.length).toBeGreaterThan(3);
    for (const [key, level] of permissions) {
      expect(section).toContain(`${permissionWords(key)}: ${level}`);
    }
    for (const event of manifest.default_events) expect(section).toContain(`\`${event}\``);
  });
});
