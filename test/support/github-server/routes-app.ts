/**
 * The operations a GitHub App calls besides check runs: the installation-token exchange, the App's
 * webhook delivery log and redelivery, re-running a workflow run, and dispatching a workflow. Like every
 * route, each is reached only after the request passed GitHub's description, and each response is checked
 * against it.
 */
import { repositoryBody } from "./fixtures.js";
import { pageOf, type Route, type RouteContext, type RouteRequest, type RouteResponse } from "./routes.js";
import type { WorkflowRunFixture } from "./state.js";

function error(status: number, message: string, context: RouteContext, violation?: string): RouteResponse {
  return {
    status,
    body: { message, documentation_url: context.documentationUrl, status: String(status) },
    ...(violation === undefined ? {} : { violation }),
  };
}

const createInstallationAccessToken: Route = {
  method: "POST",
  template: "/app/installations/{installation_id}/access_tokens",
  handle(request, context) {
    const auth = context.state.appAuth;
    if (auth === null) return error(404, "Not Found", context, "this server was started without appAuth");
    const id = Number(request.params.installation_id);
    if (id !== auth.options.installationId) {
      return error(
        404,
        "Not Found",
        context,
        `installation ${id} is not the App's (${auth.options.installationId})`,
      );
    }
    const issued = auth.issue(id);
    return {
      status: 201,
      body: {
        token: issued.token,
        expires_at: issued.expiresAt.toISOString().replace(/\.\d{3}Z$/, "Z"),
        permissions: {
          actions: "write",
          checks: "write",
          contents: "read",
          metadata: "read",
          pull_requests: "read",
        },
        repository_selection: "all",
      },
    };
  },
};

const listWebhookDeliveries: Route = {
  method: "GET",
  template: "/app/hook/deliveries",
  handle(request, context) {
    // Newest first; `cursor` is the id to continue below (GitHub's cursors are opaque: the double's are ids).
    const all = [...context.state.webhooks.records].sort((a, b) => b.id - a.id);
    const status = request.query.status;
    const filtered = all.filter(
      (d) =>
        status === undefined ||
        (status === "success"
          ? d.statusCode >= 200 && d.statusCode < 400
          : d.statusCode >= 400 || d.statusCode === 0),
    );
    const cursor = request.query.cursor === undefined ? null : Number(request.query.cursor);
    const from = cursor === null ? filtered : filtered.filter((d) => d.id < cursor);
    const perPage = Math.min(Number(request.query.per_page ?? 30), 100);
    const page = from.slice(0, perPage);
    const headers: Record<string, string> = {};
    if (from.length > perPage && page.length > 0) {
      const next = new URL(request.url);
      next.searchParams.set("cursor", String(page.at(-1)!.id));
      headers.link = `<${next.href}>; rel="next"`;
    }
    return {
      status: 200,
      headers,
      body: page.map((d) => ({
        id: d.id,
        guid: d.guid,
        delivered_at: d.deliveredAt,
        redelivery: d.redelivery,
        duration: d.duration,
        status: d.status,
        status_code: d.statusCode,
        event: d.event,
        action: d.action,
        installation_id: d.installationId,
        repository_id: d.repositoryId,
        throttled_at: null,
      })),
    };
  },
};

const redeliverWebhookDelivery: Route = {
  method: "POST",
  template: "/app/hook/deliveries/{delivery_id}/attempts",
  handle(request, context) {
    const ok = context.state.webhooks.redeliver(Number(request.params.delivery_id));
    return ok ? { status: 202, body: {} } : error(404, "Not Found", context);
  },
};

const reRunWorkflow: Route = {
  method: "POST",
  template: "/repos/{owner}/{repo}/actions/runs/{run_id}/rerun",
  handle(request, context) {
    const repository = context.state.repository(String(request.params.owner), String(request.params.repo));
    const id = Number(request.params.run_id);
    const run = context.state.workflowRuns.find((r) => r.id === id && r.repository === repository);
    if (run === undefined) return error(404, "Not Found", context);
    if (run.rerunRefused !== undefined) return error(403, run.rerunRefused, context);
    if (run.running) return error(403, "This workflow is already running", context);
    run.attempt += 1;
    run.running = true;
    // GitHub shows a re-run run as its new attempt from the request on: `queued`, no conclusion yet (the
    // attempt before it is `GET …/runs/{id}/attempts/{n}`'s). Left `completed`, the run read as attempt 2
    // finished with attempt 1's conclusion (the chaos test's seed 322255, test/bot/chaos-findings.test.ts).
    if (run.body !== undefined) {
      run.body = { ...run.body, status: "queued", conclusion: null, run_attempt: run.attempt };
    }
    context.state.reruns.push(id);
    return { status: 201, body: {} };
  },
};

const createWorkflowDispatch: Route = {
  method: "POST",
  template: "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches",
  handle(request, context) {
    const { state } = context;
    const repository = state.repository(String(request.params.owner), String(request.params.repo));
    if (repository === undefined) return error(404, "Not Found", context);
    const file = String(request.params.workflow_id);
    const workflow = state.workflows.find((w) => w.repository === repository && w.file === file);
    if (workflow === undefined) return error(404, "Not Found", context);
    const body = request.body as { ref: string; inputs?: Record<string, unknown> };
    if (body.ref !== repository.defaultBranch) {
      return error(
        422,
        `No ref found for: ${body.ref}`,
        context,
        `dispatch ref ${body.ref} is not the default branch`,
      );
    }
    const inputs = body.inputs ?? {};
    const declared = new Set(workflow.inputs.map((i) => i.name));
    const unexpected = Object.keys(inputs).filter((k) => !declared.has(k));
    // GitHub's own wording for an input the workflow does not declare.
    if (unexpected.length > 0)
      return error(422, `Unexpected inputs provided: ${JSON.stringify(unexpected)}`, context);
    const missing = workflow.inputs
      .filter((i) => i.required === true && !(i.name in inputs))
      .map((i) => i.name);
    if (missing.length > 0) return error(422, `Required input '${missing[0]}' not provided`, context);
    for (const [k, v] of Object.entries(inputs)) {
      if (typeof v !== "string" && typeof v !== "boolean" && typeof v !== "number") {
        return error(422, `Invalid value for input '${k}'`, context);
      }
    }
    state.dispatches.push({
      repository: `${repository.owner.login}/${repository.name}`,
      workflow: file,
      ref: body.ref,
      inputs,
    });
    return { status: 204 };
  },
};

const CREATED = "2026-01-05T10:00:00Z";

/** `GET /app/installations` (the App's JWT): the one installation the double knows, on the App's owner. */
const listInstallations: Route = {
  method: "GET",
  template: "/app/installations",
  handle(_request, context) {
    const auth = context.state.appAuth;
    const app = context.state.app;
    if (auth === null) return error(404, "Not Found", context, "this server was started without appAuth");
    const id = auth.options.installationId;
    const account = context.state.repository(
      ...(context.state.defaultRepository.split("/") as [string, string]),
    )!.owner;
    return {
      status: 200,
      body: [
        {
          id,
          app_id: app.id,
          app_slug: app.slug,
          target_id: account.id,
          target_type: account.type,
          single_file_name: null,
          repository_selection: "all",
          access_tokens_url: `${context.origins.api}/app/installations/${id}/access_tokens`,
          html_url: `${context.origins.web}/organizations/${account.login}/settings/installations/${id}`,
          repositories_url: `${context.origins.api}/installation/repositories`,
          events: ["check_run", "check_suite", "pull_request", "workflow_run"],
          // Nullable in the description; the double's validator does not accept its simple-user branch here.
          account: null,
          permissions: { actions: "write", checks: "write", contents: "read", metadata: "read" },
          created_at: CREATED,
          updated_at: CREATED,
          suspended_by: null,
          suspended_at: null,
        },
      ],
    };
  },
};

/** `GET /installation/repositories` (an installation token): every repository the double knows. */
const listInstallationRepositories: Route = {
  method: "GET",
  template: "/installation/repositories",
  handle(_request, context) {
    const repositories = context.state.repositories().map((r) => repositoryBody(r, context.origins));
    return {
      status: 200,
      body: { total_count: repositories.length, repository_selection: "all", repositories },
    };
  },
};

function workflowRunBody(run: WorkflowRunFixture): Record<string, unknown> | undefined {
  return run.body === undefined ? undefined : { ...run.body, id: run.id, run_attempt: run.attempt };
}

/** `GET /repos/{owner}/{repo}/actions/runs/{run_id}`: a run whose fixture carries a body; 404 otherwise. */
const getWorkflowRun: Route = {
  method: "GET",
  template: "/repos/{owner}/{repo}/actions/runs/{run_id}",
  handle(request, context) {
    const repository = context.state.repository(String(request.params.owner), String(request.params.repo));
    const id = Number(request.params.run_id);
    const run = context.state.workflowRuns.find((r) => r.id === id && r.repository === repository);
    const body = run === undefined ? undefined : workflowRunBody(run);
    return body === undefined ? error(404, "Not Found", context) : { status: 200, body };
  },
};

/** `GET /repos/{owner}/{repo}/actions/runs` (`head_sha`, `event` filters; `per_page`, `page`): newest first. */
const listWorkflowRuns: Route = {
  method: "GET",
  template: "/repos/{owner}/{repo}/actions/runs",
  handle(request, context) {
    const repository = context.state.repository(String(request.params.owner), String(request.params.repo));
    if (repository === undefined) return error(404, "Not Found", context);
    const { head_sha: headSha, event } = request.query;
    const runs = context.state.workflowRuns
      .filter((r) => r.repository === repository && (headSha === undefined || r.headSha === headSha))
      .map(workflowRunBody)
      .filter(
        (b): b is Record<string, unknown> => b !== undefined && (event === undefined || b.event === event),
      )
      .sort((a, b) => Number(b.id) - Number(a.id));
    return runsPage(runs, request);
  },
};

/**
 * `GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs` (a file name as `workflow_id`; `event`,
 * `head_sha` filters; `per_page`, `page` with a `Link` header): one workflow file's runs, newest
 * first. https://docs.github.com/rest/actions/workflow-runs#list-workflow-runs-for-a-workflow
 */
const listWorkflowRunsOfWorkflow: Route = {
  method: "GET",
  template: "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs",
  handle(request, context) {
    const repository = context.state.repository(String(request.params.owner), String(request.params.repo));
    if (repository === undefined) return error(404, "Not Found", context);
    const path = `.github/workflows/${String(request.params.workflow_id)}`;
    const { event, head_sha: headSha } = request.query;
    const runs = context.state.workflowRuns
      .filter((r) => r.repository === repository && (headSha === undefined || r.headSha === headSha))
      .map(workflowRunBody)
      .filter(
        (b): b is Record<string, unknown> =>
          b !== undefined && b.path === path && (event === undefined || b.event === event),
      )
      .sort((a, b) => Number(b.id) - Number(a.id));
    return runsPage(runs, request);
  },
};

/** One page of `runs` as GitHub answers a run listing (`pageOf`). */
function runsPage(runs: readonly Record<string, unknown>[], request: RouteRequest): RouteResponse {
  const { slice, headers } = pageOf(runs, request);
  return { status: 200, headers, body: { total_count: runs.length, workflow_runs: slice } };
}

export const APP_ROUTES: readonly Route[] = [
  listWorkflowRunsOfWorkflow,
  listInstallations,
  listInstallationRepositories,
  getWorkflowRun,
  listWorkflowRuns,
  createInstallationAccessToken,
  listWebhookDeliveries,
  redeliverWebhookDelivery,
  reRunWorkflow,
  createWorkflowDispatch,
];
