#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  formatDuration,
  opt,
  parseCodexConfig,
  parseDuration,
  repositoryFlagProblem,
  runtimeFor
} from "./cli-chunk-OU6P7TWF.js";
import {
  MAX_VERIFY_REPEAT,
  external_exports,
  require_dist,
  testReportsPatternProblem
} from "./cli-chunk-NJKI2YPK.js";
import {
  findExecutable,
  verifyEnvProblems
} from "./cli-chunk-FXTLPJ5R.js";
import {
  RE2JS
} from "./cli-chunk-Q4DFSTE5.js";
import {
  __toESM
} from "./cli-chunk-VKCPXAXI.js";

// src/graph/fragment-source.ts
import { lstat, readFile, realpath } from "node:fs/promises";
import { dirname, join } from "node:path";

// src/graph/graph-text.ts
var import_yaml = __toESM(require_dist(), 1);

// src/graph/plain-data.ts
function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}
function isPlainRecord(value) {
  if (!isRecord(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
function withoutNulls(value) {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isPlainRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value).filter(([, child]) => child !== null).map(([key, child]) => [key, withoutNulls(child)])
  );
}

// src/graph/graph-text.ts
function readGraphText(text, source) {
  const doc = (0, import_yaml.parseDocument)(text, { prettyErrors: true, uniqueKeys: true, merge: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      issues: doc.errors.map((error) => ({ nodeId: null, reason: yamlErrorReason(error, text, source) }))
    };
  }
  let data;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, issues: [{ nodeId: null, reason: `cannot parse ${source} as YAML: ${why}` }] };
  }
  const version = (0, import_yaml.isMap)(doc.contents) ? doc.contents.get("version", true) : void 0;
  if (isRecord(data) && typeof data.version === "number" && (0, import_yaml.isScalar)(version) && version.source !== void 0) {
    data.version = version.source;
  }
  return { ok: true, data };
}
function yamlErrorReason(error, text, source) {
  const [position] = error.linePos ?? [];
  const at = position === void 0 ? "" : ` at line ${position.line}, column ${position.col}`;
  if (error.code === "MULTIPLE_DOCS") {
    const count = (0, import_yaml.parseAllDocuments)(text);
    const documents = Array.isArray(count) && count.length > 1 ? `${count.length} YAML documents` : "several YAML documents";
    return `${source} holds ${documents}; a graph file holds one (the second starts${at}): remove the --- line and what follows, or split the file`;
  }
  const first = (error.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "").replace(/:$/, "");
  return `cannot parse ${source} as YAML: ${first === "" ? error.code : first}${at}`;
}

// src/graph/fragment-source.ts
var MAX_FRAGMENT_DEPTH = 3;
var BARE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
function fragmentNameProblem(name) {
  if (BARE_NAME.test(name) && !name.includes("..")) return null;
  return `${JSON.stringify(name)} is not a fragment name: write a bare file name (letters, digits, ".", "_" or "-", starting with a letter or digit, no ".." and no "/"), which is looked up as fragments/NAME.yaml beside the graph file and nowhere else`;
}
function fragmentsBeside(graphPath, shownGraphPath = graphPath) {
  const folder = join(dirname(graphPath), "fragments");
  const shownFolder = join(dirname(shownGraphPath), "fragments");
  return {
    async read(name) {
      const location = join(shownFolder, `${name}.yaml`);
      const problem = fragmentNameProblem(name);
      if (problem !== null) return { kind: "unreadable", location, reason: problem };
      const path = join(folder, `${name}.yaml`);
      try {
        const entry = await lstat(path);
        if (entry.isSymbolicLink()) {
          return {
            kind: "unreadable",
            location,
            reason: "it is a symlink, and a fragment is read only from a regular file in fragments/ (a link could reach a file outside it): put the fragment's text in the file itself"
          };
        }
        if (entry.isDirectory()) {
          return { kind: "unreadable", location, reason: "it is a directory, not a fragment file" };
        }
        if (dirname(await realpath(path)) !== join(await realpath(dirname(graphPath)), "fragments")) {
          return {
            kind: "unreadable",
            location,
            reason: "it resolves outside the graph's fragments/ folder (is fragments/ a symlink?): make fragments/ a real folder beside the graph"
          };
        }
        return { kind: "found", location, text: await readFile(path, "utf8") };
      } catch (error) {
        if (error.code === "ENOENT") return { kind: "missing", location };
        return {
          kind: "unreadable",
          location,
          reason: error instanceof Error ? error.message : String(error)
        };
      }
    }
  };
}
function citedNames(nodes) {
  const list = Array.isArray(nodes) ? nodes : [nodes];
  return list.flatMap(
    (node) => isRecord(node) && typeof node.use === "string" && fragmentNameProblem(node.use) === null ? [node.use] : []
  );
}
async function gatherFragments(data, source) {
  const library = /* @__PURE__ */ new Map();
  let level = isRecord(data) ? citedNames(data.nodes) : [];
  for (let depth = 1; depth <= MAX_FRAGMENT_DEPTH && level.length > 0; depth += 1) {
    const next = [];
    for (const name of new Set(level)) {
      if (library.has(name)) continue;
      const read = await source.read(name);
      library.set(name, read);
      if (read.kind !== "found") continue;
      const parsed = readGraphText(read.text, read.location);
      const fragment = parsed.ok ? withoutNulls(parsed.data) : null;
      if (isRecord(fragment)) next.push(...citedNames(fragment.node ?? fragment.nodes));
    }
    level = next;
  }
  return library;
}

// src/graph/issue.ts
function formatIssue(issue) {
  return issue.nodeId === null ? `invalid graph: ${issue.reason}` : `invalid graph: node ${JSON.stringify(issue.nodeId)}: ${issue.reason}`;
}
function nodeIssue(node, index, reason) {
  return node.id.trim() === "" ? { nodeId: null, reason: `nodes[${index}]: ${reason}` } : { nodeId: node.id, reason };
}

// src/graph/placeholders.ts
var LITERAL_BRACES_HINT = "Only {{ inputs.NAME }}, {{ artifacts.ID }}, {{ artifacts.ID | inline }} and {{ feedback.ID }} are placeholders; any other {{ \u2026 }} text is kept as written. To keep one of these literally, put a space between the braces, e.g. { { inputs.NAME } }.";
var TOKEN = /\{\{\s*(inputs|artifacts|feedback)(?=\s*[.|]|\s*\}\})([^{}]*)\}\}/g;
var REF = /^\.([A-Za-z0-9._/-]+)\s*(?:\|\s*(\S*)\s*)?$/;
var WANT = {
  inputs: "{{ inputs.NAME }}",
  artifacts: "{{ artifacts.ID }} or {{ artifacts.ID | inline }}",
  feedback: "{{ feedback.ID }}"
};
function placeholdersIn(template) {
  const refs = [];
  for (const match of template.matchAll(TOKEN)) {
    const [token, ns = "", body = ""] = match;
    const namespace = ns;
    const base = { token, index: match.index, namespace };
    const ref = REF.exec(body);
    if (ref === null) {
      refs.push({
        ...base,
        name: "",
        inline: false,
        problem: `malformed placeholder; write ${WANT[namespace]}`
      });
      continue;
    }
    const [, name = "", filter] = ref;
    let problem = null;
    if (filter !== void 0) {
      if (namespace !== "artifacts") {
        problem = `${namespace} placeholders take no filter; write {{ ${namespace}.${name} }}`;
      } else if (filter !== "inline") {
        problem = `unknown filter ${JSON.stringify(filter)}; the only filter is | inline`;
      }
    }
    refs.push({ ...base, name, inline: filter === "inline", problem });
  }
  return refs;
}
var LOOKALIKE = /(?<!\$)\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)((?:\.[A-Za-z0-9_/-]+)*)\s*(?:\|\s*([A-Za-z_][A-Za-z0-9_]*)\s*)?\}\}/g;
var NAMESPACES = ["inputs", "artifacts", "feedback"];
function lookalikePlaceholdersIn(template) {
  const refs = [];
  for (const match of template.matchAll(LOOKALIKE)) {
    const [token, namespace = "", dotted = "", filter] = match;
    if (NAMESPACES.includes(namespace)) continue;
    refs.push({
      token,
      index: match.index,
      namespace,
      path: dotted === "" ? [] : dotted.slice(1).split("."),
      filter: filter ?? null
    });
  }
  return refs;
}
function interpolate(template, ctx) {
  const values = /* @__PURE__ */ new Map();
  const failures = /* @__PURE__ */ new Map();
  for (const ref of placeholdersIn(template)) {
    if (values.has(ref.token) || failures.has(ref.token)) continue;
    const resolved = resolve(ref, ctx);
    if (resolved.ok) values.set(ref.token, resolved.value);
    else failures.set(ref.token, resolved.why);
  }
  if (failures.size > 0) {
    const lines = [...failures].map(([token, why]) => `cannot resolve ${token}: ${why}`);
    return {
      ok: false,
      unresolved: [...failures.keys()],
      message: [...lines, LITERAL_BRACES_HINT].join("\n")
    };
  }
  const text = template.replace(TOKEN, (token) => values.get(token) ?? token);
  return { ok: true, text };
}
function resolve(ref, ctx) {
  if (ref.problem !== null) return { ok: false, why: ref.problem };
  switch (ref.namespace) {
    case "inputs":
      return Object.hasOwn(ctx.inputs, ref.name) ? { ok: true, value: ctx.inputs[ref.name] ?? "" } : { ok: false, why: "no such input was provided" };
    case "artifacts": {
      const path = ctx.artifactPath(ref.name);
      if (path === void 0) {
        return {
          ok: false,
          why: `no artifact from node "${ref.name}" (it has not passed, or is not in this run)`
        };
      }
      if (!ref.inline) return { ok: true, value: path };
      const content = ctx.readArtifact(ref.name);
      return content === void 0 ? { ok: false, why: `cannot read the artifact file ${path}` } : { ok: true, value: content };
    }
    case "feedback": {
      const payload = ctx.feedback(ref.name);
      return payload === void 0 ? { ok: false, why: `node "${ref.name}" declares no feedback arc` } : { ok: true, value: payload };
    }
  }
}

// src/graph/fragment-text.ts
var WITH_TOKEN = /\{\{\s*with\.([A-Za-z0-9_]+)\s*\}\}/g;
var WHOLE_WITH_TOKEN = /^\{\{\s*with\.([A-Za-z0-9_]+)\s*\}\}$/;
var ANY_TOKEN = /\{\{([^{}]*)\}\}/g;
var LEADING_WORD = /^\s*([A-Za-z0-9_]+)/;
var REF_HEAD = /^(\{\{\s*(?:artifacts|feedback)\.)([A-Za-z0-9._/-]+)/;
function stringsIn(value) {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (isPlainRecord(value)) return Object.values(value).flatMap(stringsIn);
  return [];
}
function withTokensIn(value) {
  const names = [];
  const malformed = [];
  for (const text of stringsIn(value)) {
    for (const match of text.matchAll(ANY_TOKEN)) {
      const word = LEADING_WORD.exec(match[1] ?? "")?.[1];
      if (word === void 0 || word.toLowerCase() !== "with") continue;
      const strict = WHOLE_WITH_TOKEN.exec(match[0]);
      if (strict === null || word !== "with") malformed.push(match[0]);
      else if (!names.includes(strict[1] ?? "")) names.push(strict[1] ?? "");
    }
  }
  return { names, malformed };
}
function substituteWith(value, bindings) {
  const problems = [];
  const bound = (name) => Object.hasOwn(bindings, name);
  const text = (source) => {
    const whole = WHOLE_WITH_TOKEN.exec(source);
    if (whole !== null && bound(whole[1] ?? "")) return structuredClone(bindings[whole[1] ?? ""]);
    return source.replace(WITH_TOKEN, (token, name) => {
      if (!bound(name)) return token;
      const replacement = bindings[name];
      if (typeof replacement === "string") return replacement;
      if (typeof replacement === "number" || typeof replacement === "boolean") return String(replacement);
      problems.push(
        `with: ${name} is bound to ${Array.isArray(replacement) ? "a list" : "a mapping"}, which cannot be spliced into text (${JSON.stringify(token)} sits inside a longer string); bind text, or make the token the whole value`
      );
      return token;
    });
  };
  const walk = (node) => {
    if (typeof node === "string") return text(node);
    if (Array.isArray(node)) return node.map(walk);
    if (!isPlainRecord(node)) return node;
    const out = {};
    for (const [key, child] of Object.entries(node)) {
      const replaced = walk(child);
      const emptied = replaced === "" && typeof child === "string" && WHOLE_WITH_TOKEN.test(child);
      if (!emptied) out[key] = replaced;
    }
    return out;
  };
  return { value: walk(value), problems };
}
function renameRefs(text, rename, namespaces = ["artifacts", "feedback"]) {
  const refs = placeholdersIn(text).filter(
    (ref) => ref.problem === null && namespaces.includes(ref.namespace)
  );
  if (refs.length === 0) return text;
  let out = "";
  let at = 0;
  for (const ref of refs) {
    const renamed = rename(ref.name);
    if (renamed === void 0) continue;
    out += text.slice(at, ref.index) + ref.token.replace(REF_HEAD, (_all, head) => `${head}${renamed}`);
    at = ref.index + ref.token.length;
  }
  return out + text.slice(at);
}
function renameRefsIn(value, rename, namespaces = ["artifacts", "feedback"]) {
  if (typeof value === "string") return renameRefs(value, rename, namespaces);
  if (Array.isArray(value)) return value.map((item) => renameRefsIn(item, rename, namespaces));
  if (!isPlainRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [key, renameRefsIn(child, rename, namespaces)])
  );
}
function refsIn(value) {
  return stringsIn(value).flatMap(
    (text) => placeholdersIn(text).filter((ref) => ref.namespace !== "inputs" && ref.problem === null).map((ref) => ({ id: ref.name, token: ref.token }))
  );
}

// src/graph/topology.ts
function indexById(nodes) {
  const byId = /* @__PURE__ */ new Map();
  for (const node of nodes) if (!byId.has(node.id)) byId.set(node.id, node);
  return byId;
}
function* ancestorsFrom(byId, id) {
  const seen = /* @__PURE__ */ new Set();
  const stack = [id];
  while (stack.length > 0) {
    const current = byId.get(stack.pop() ?? "");
    for (const parent of current?.depends_on ?? []) {
      if (!seen.has(parent) && byId.has(parent)) {
        seen.add(parent);
        yield parent;
        stack.push(parent);
      }
    }
  }
}
function ancestorsOf(nodes, id) {
  return new Set(ancestorsFrom(indexById(nodes), id));
}
function hasAncestor(byId, id, candidate) {
  for (const ancestor of ancestorsFrom(byId, id)) if (ancestor === candidate) return true;
  return false;
}
function dependentsOf(nodes, id) {
  return nodes.filter((node) => node.depends_on?.includes(id) === true).map((node) => node.id);
}
function sinksOf(nodes) {
  const depended = new Set(nodes.flatMap((node) => node.depends_on ?? []));
  return nodes.filter((node) => !depended.has(node.id)).map((node) => node.id);
}
function cyclesOf(nodes) {
  const byId = indexById(nodes);
  const order = new Map(nodes.map((node, index) => [node.id, index]));
  const state = /* @__PURE__ */ new Map();
  const path = [];
  const found = /* @__PURE__ */ new Map();
  const stack = [];
  const enter = (id) => {
    state.set(id, "open");
    path.push(id);
    stack.push({ id, parents: byId.get(id)?.depends_on ?? [], next: 0 });
  };
  for (const node of nodes) {
    if (state.has(node.id)) continue;
    enter(node.id);
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.next >= top.parents.length) {
        stack.pop();
        path.pop();
        state.set(top.id, "done");
        continue;
      }
      const parent = top.parents[top.next++];
      if (parent === top.id || !byId.has(parent)) continue;
      const seen = state.get(parent);
      if (seen === "open") {
        const loop = path.slice(path.indexOf(parent));
        const start = loop.reduce(
          (best, candidate, at) => (order.get(candidate) ?? 0) < (order.get(loop[best] ?? "") ?? 0) ? at : best,
          0
        );
        const rotated = [...loop.slice(start), ...loop.slice(0, start)];
        const key = rotated.join("\0");
        if (!found.has(key)) found.set(key, [...rotated, rotated[0] ?? parent]);
      } else if (seen === void 0) {
        enter(parent);
      }
    }
  }
  return [...found.values()];
}
function feedbackBodyOf(nodes, declarerId) {
  const declarer = indexById(nodes).get(declarerId);
  const target = declarer?.feedback?.rerun;
  if (declarer === void 0 || target === void 0) return [];
  const upstream = ancestorsOf(nodes, declarerId);
  if (!upstream.has(target) || target === declarerId) return [];
  return nodes.filter(
    (node) => node.id === declarerId || node.id === target || upstream.has(node.id) && ancestorsOf(nodes, node.id).has(target)
  ).map((node) => node.id);
}

// src/graph/validate-edges.ts
var NODE_ID_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
var NODE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*(?:\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;
function idIssues(nodes) {
  const issues = [];
  const firstIndex = /* @__PURE__ */ new Map();
  nodes.forEach((node, index) => {
    if (node.id.trim() === "") {
      issues.push({ nodeId: null, reason: `nodes[${index}] has an empty id` });
      return;
    }
    const first = firstIndex.get(node.id);
    if (first !== void 0) {
      issues.push({ nodeId: node.id, reason: `duplicate node id (nodes[${first}] and nodes[${index}])` });
    } else {
      firstIndex.set(node.id, index);
    }
    if (!NODE_ID_PATTERN.test(node.id)) {
      issues.push({
        nodeId: node.id,
        reason: `node id ${JSON.stringify(node.id)} must be one path element: letters, digits, ".", "_" or "-", starting with a letter or digit`
      });
    }
  });
  return issues;
}
function dependencyIssues(nodes) {
  const issues = [];
  const ids = new Set(nodes.map((node) => node.id));
  nodes.forEach((node, index) => {
    const seen = /* @__PURE__ */ new Set();
    for (const parent of node.depends_on ?? []) {
      if (seen.has(parent)) {
        issues.push(nodeIssue(node, index, `depends_on lists ${JSON.stringify(parent)} more than once`));
        continue;
      }
      seen.add(parent);
      if (parent === node.id) issues.push(nodeIssue(node, index, "node depends on itself"));
      else if (!ids.has(parent))
        issues.push(nodeIssue(node, index, `depends_on unknown node ${JSON.stringify(parent)}`));
    }
  });
  for (const cycle of cyclesOf(nodes)) {
    issues.push({ nodeId: cycle[0] ?? null, reason: `dependency cycle: ${cycle.join(" -> ")}` });
  }
  return issues;
}
function sessionHandoffIssues(nodes) {
  const issues = [];
  const types = new Map(nodes.map((node) => [node.id, node.type ?? "agent"]));
  nodes.forEach((node, index) => {
    if (node.handoff !== "session" || node.type === "gate") return;
    const parents = node.depends_on ?? [];
    const [parent] = parents;
    if (parents.length !== 1 || parent === void 0) {
      issues.push(
        nodeIssue(
          node,
          index,
          `handoff: session needs exactly one parent whose session it continues (has ${parents.length}); use handoff: artifact for a root node or a fan-in`
        )
      );
    } else if (types.get(parent) === "gate") {
      issues.push(
        nodeIssue(
          node,
          index,
          `handoff: session with gate parent ${JSON.stringify(parent)} \u2014 a gate records no session to continue; use handoff: artifact`
        )
      );
    }
  });
  return issues;
}

// src/graph/fragment-file.ts
var FILE_FIELDS = ["fragment", "description", "substitutions", "node", "nodes", "exit"];
var SUBSTITUTION_NAME = /^[A-Za-z0-9_]+$/;
function judgeFragment(name, read) {
  const location = read?.location ?? `fragments/${name}.yaml`;
  const refuse = (...reasons2) => ({ ok: false, location, reasons: reasons2 });
  if (read === void 0 || read.kind === "missing") {
    return refuse(
      `no fragment file ${location}: a fragment is looked up there, beside the graph file, and nowhere else`
    );
  }
  if (read.kind === "unreadable") return refuse(`cannot read ${location}: ${read.reason}`);
  const parsed = readGraphText(read.text, location);
  if (!parsed.ok) return refuse(...parsed.issues.map((issue) => issue.reason));
  const data = withoutNulls(parsed.data);
  if (!isRecord(data))
    return refuse(`${location} must be a mapping with fragment, description and node or nodes`);
  const reasons = [];
  for (const key of Object.keys(data)) {
    if (!FILE_FIELDS.includes(key)) {
      reasons.push(
        `unknown field ${JSON.stringify(key)} (a fragment file has only ${FILE_FIELDS.join(", ")})`
      );
    }
  }
  if (data.fragment !== name) {
    reasons.push(
      data.fragment === void 0 ? `fragment: ${JSON.stringify(name)} is missing \u2014 the file must say which fragment it is` : `fragment: says ${JSON.stringify(data.fragment)}, but the file is ${name}.yaml \u2014 they must agree`
    );
  }
  const description = typeof data.description === "string" ? data.description.trim() : "";
  if (description === "") reasons.push("description: is missing or empty \u2014 say what the spliced node does");
  const substitutions = substitutionsOf(data.substitutions, reasons);
  const body = bodyOf(data, reasons);
  let unreferenced = [];
  if (body !== null) {
    const tokens = withTokensIn(body.kind === "single" ? body.node : body.nodes);
    unreferenced = substitutions.filter((point) => !tokens.names.includes(point));
    for (const token of tokens.malformed) {
      reasons.push(
        `${JSON.stringify(token)} claims the with namespace but is not {{ with.NAME }}, so it could never be substituted and would reach the model as written`
      );
    }
    for (const used of tokens.names) {
      if (!substitutions.includes(used)) {
        reasons.push(`{{ with.${used} }} is used but not declared in substitutions`);
      }
    }
  }
  if (reasons.length > 0 || body === null) return refuse(...reasons);
  return { ok: true, fragment: { name, location, description, substitutions, unreferenced, ...body } };
}
function substitutionsOf(value, reasons) {
  if (value === void 0) return [];
  if (!Array.isArray(value)) {
    reasons.push("substitutions: must be a list of names");
    return [];
  }
  const names = [];
  for (const item of value) {
    if (typeof item !== "string" || !SUBSTITUTION_NAME.test(item)) {
      reasons.push(`substitutions: ${JSON.stringify(item)} is not a name (letters, digits and "_")`);
    } else if (names.includes(item)) {
      reasons.push(`substitutions: ${JSON.stringify(item)} is listed more than once`);
    } else {
      names.push(item);
    }
  }
  return names;
}
function bodyOf(data, reasons) {
  const hasNode = data.node !== void 0;
  const hasNodes = data.nodes !== void 0;
  if (hasNode === hasNodes) {
    reasons.push(
      hasNode ? "declares both node: and nodes: \u2014 a fragment is one node (node:) or several (nodes: with exit:)" : "declares neither node: nor nodes: \u2014 there is nothing to splice"
    );
    return null;
  }
  if (hasNode) {
    if (data.exit !== void 0)
      reasons.push("exit: belongs to a nodes: fragment; a single node is its own exit");
    return singleBody(data.node, reasons);
  }
  return multiBody(data.nodes, data.exit, reasons);
}
var PLACEMENT = "where a node runs is the citing node's choice, which it passes to every spliced node";
var NO_IDS = "a node: fragment declares no ids, so it cannot name one; the citing node sets it";
function singleBody(node, reasons) {
  if (!isRecord(node)) {
    reasons.push("node: must be a mapping (one node's fields)");
    return null;
  }
  const wrong = { id: NO_IDS, depends_on: NO_IDS, feedback: NO_IDS, cwd: PLACEMENT, worktree: PLACEMENT };
  for (const [field, why] of Object.entries(wrong)) {
    if (node[field] !== void 0) reasons.push(`node: may not set ${field} \u2014 ${why}`);
  }
  for (const { token } of refsIn(node)) {
    reasons.push(`node: ${token} names a node, and ${NO_IDS}; bind the reference through a substitution`);
  }
  return { kind: "single", node };
}
function multiBody(nodes, exit, reasons) {
  if (!Array.isArray(nodes) || nodes.length === 0 || !nodes.every(isRecord)) {
    reasons.push("nodes: must be a non-empty list of nodes");
    return null;
  }
  const ids = [];
  nodes.forEach((node, index) => {
    const id = node.id;
    if (typeof id !== "string" || !NODE_ID_SEGMENT.test(id)) {
      reasons.push(
        `nodes[${index}]: id ${JSON.stringify(id ?? null)} must be one path element (letters, digits, ".", "_", "-"; no "/" \u2014 only splicing writes one)`
      );
    } else if (ids.includes(id)) {
      reasons.push(`nodes[${index}]: id ${JSON.stringify(id)} is declared twice`);
    } else {
      ids.push(id);
    }
  });
  const declared = new Set(ids);
  nodes.forEach((node, index) => {
    const at = typeof node.id === "string" ? `node ${JSON.stringify(node.id)}` : `nodes[${index}]`;
    for (const field of ["cwd", "worktree"]) {
      if (node[field] !== void 0) reasons.push(`${at}: may not set ${field} \u2014 ${PLACEMENT}`);
    }
    const parents = Array.isArray(node.depends_on) ? node.depends_on : [];
    const rerun = isRecord(node.feedback) ? node.feedback.rerun : void 0;
    for (const named of [...parents, ...rerun === void 0 ? [] : [rerun]]) {
      if (typeof named === "string" && !declared.has(named)) {
        reasons.push(
          `${at}: names ${JSON.stringify(named)}, which this fragment does not declare \u2014 a fragment wires only its own nodes`
        );
      }
    }
    for (const { id, token } of refsIn(node)) {
      if (!declared.has(id)) {
        reasons.push(
          `${at}: ${token} names ${JSON.stringify(id)}, which this fragment does not declare; bind it through a substitution`
        );
      }
    }
  });
  if (typeof exit !== "string" || !declared.has(exit)) {
    reasons.push(
      exit === void 0 ? "exit: is missing \u2014 a nodes: fragment must name the node its citation stands for (it is never guessed)" : `exit: ${JSON.stringify(exit)} is not one of its nodes (${ids.join(", ")})`
    );
    return null;
  }
  const topology = nodes.map((node) => ({
    id: String(node.id),
    depends_on: Array.isArray(node.depends_on) ? node.depends_on.map(String) : [],
    ...isRecord(node.feedback) && typeof node.feedback.rerun === "string" ? { feedback: { rerun: node.feedback.rerun } } : {}
  }));
  for (const declarer of topology) {
    if (declarer.id !== exit && feedbackBodyOf(topology, declarer.id).includes(exit)) {
      reasons.push(
        `exit: ${JSON.stringify(exit)} lies inside the feedback arc of ${JSON.stringify(declarer.id)}: a node downstream of the citation would depend on the middle of a loop; exit at the arc's declarer or after it`
      );
    }
  }
  return { kind: "multi", nodes, exit };
}

// src/graph/resolve-fragments.ts
function formatSplice(splice) {
  const parts = [
    `fragment: node ${JSON.stringify(splice.nodeId)} spliced from ${JSON.stringify(splice.fragment)} (${splice.location}) \u2014 ${splice.description}`
  ];
  if (splice.overridden.length > 0) parts.push(`node overrides: ${splice.overridden.join(", ")}`);
  if (splice.spliced.length > 0) parts.push(`nodes: ${splice.spliced.join(", ")}`);
  if (splice.grants.length > 0) {
    const grant = (tools) => Array.isArray(tools) ? `[${tools.map(String).join(", ")}]` : JSON.stringify(tools);
    parts.push(`grants: ${splice.grants.map((g) => `${g.nodeId} ${grant(g.tools)}`).join("; ")}`);
  }
  return parts.join(" \u2014 ");
}
var WIRING = ["id", "use", "with", "depends_on", "cwd", "worktree"];
var MAX_SPLICED_NODES = 1e4;
function resolveFragments(data, library) {
  if (!Array.isArray(data.nodes)) return { data, issues: [], splices: [], notes: [] };
  const splicer = new Splicer(library);
  const spliced = [];
  data.nodes.forEach((node) => {
    if (!isRecord(node)) {
      spliced.push(node);
      return;
    }
    splicer.checkAuthored(node);
    if (node.use !== void 0) splicer.splice(node, [], spliced);
    else if (node.with !== void 0) {
      splicer.issue(
        node,
        "with: binds a fragment's substitution points, but this node has no use: \u2014 add use: NAME or remove with:"
      );
      const { with: _with, ...rest } = node;
      spliced.push(rest);
    } else spliced.push(node);
  });
  splicer.checkCollisions(spliced);
  return {
    data: { ...data, nodes: splicer.pointAtExits(spliced) },
    issues: splicer.issues,
    splices: splicer.splices,
    notes: splicer.notes
  };
}
var Splicer = class {
  constructor(library) {
    this.library = library;
  }
  library;
  issues = [];
  splices = [];
  notes = [];
  /** A multi-node citation's id → its exit's spliced id. */
  exits = /* @__PURE__ */ new Map();
  judged = /* @__PURE__ */ new Map();
  /** Set once splicing would pass {@link MAX_SPLICED_NODES}: no citation is spliced after that. */
  overBudget = false;
  /**
   * Whether `adding` more nodes fits {@link MAX_SPLICED_NODES} beside the `out` already spliced; when not,
   * the citing node is reported once and every later citation is left unspliced.
   */
  fits(using, fragmentName, out, adding) {
    if (this.overBudget) return false;
    if (out.length + adding <= MAX_SPLICED_NODES) return true;
    this.overBudget = true;
    this.issue(
      using,
      `use ${JSON.stringify(fragmentName)}: splicing the graph's fragments makes more than ${MAX_SPLICED_NODES.toLocaleString("en-US")} nodes \u2014 a graph may have at most ${MAX_SPLICED_NODES.toLocaleString("en-US")} once its fragments are spliced in; cite fewer fragments (a citation of a fragment that cites others counts every node they splice)`
    );
    return false;
  }
  issue(node, reason) {
    this.issues.push({
      nodeId: typeof node.id === "string" && node.id.trim() !== "" ? node.id : null,
      reason
    });
  }
  /** A graph file's own node may not write `/` in its id or in the ids it names. */
  checkAuthored(node) {
    if (typeof node.id === "string" && node.id.includes("/")) {
      this.issue(
        node,
        `id ${JSON.stringify(node.id)} contains "/", which only fragment splicing writes (USING/INNER); choose an id without it`
      );
    }
    const parents = Array.isArray(node.depends_on) ? node.depends_on : [];
    const rerun = isRecord(node.feedback) ? node.feedback.rerun : void 0;
    for (const named of [...parents, ...rerun === void 0 ? [] : [rerun]]) {
      if (typeof named === "string" && named.includes("/")) {
        const citing = named.slice(0, named.indexOf("/"));
        this.issue(
          node,
          `names ${JSON.stringify(named)}, a node inside a fragment citation: name the citing node ${JSON.stringify(citing)} instead (it stands for the fragment's exit)`
        );
      }
    }
    for (const { id, token } of refsIn(node)) {
      if (id.includes("/")) {
        const citing = id.slice(0, id.indexOf("/"));
        this.issue(
          node,
          `${token} names ${JSON.stringify(id)}, a node inside a fragment citation, whose internals a graph file may not read: name the citing node ${JSON.stringify(citing)} instead (it stands for the fragment's exit)`
        );
      }
    }
  }
  /**
   * A hand-written node sharing its id with a multi-node citation (Go `refuseLoopIDCollisions`): the
   * citation's id leaves the spliced graph, so duplicate-id validation cannot see the pair, and every
   * reference to the id would be aimed at the fragment's exit, orphaning the hand-written node.
   */
  checkCollisions(nodes) {
    for (const node of nodes) {
      if (isRecord(node)) this.checkLoopRefs(node);
      if (!isRecord(node) || typeof node.id !== "string" || !this.exits.has(node.id)) continue;
      this.issue(
        node,
        `a node citing a multi-node fragment shares its id ${JSON.stringify(node.id)} with this node \u2014 depends_on: [${node.id}] and {{ artifacts.${node.id} }} name that fragment's exit, so this node would be bypassed: give one of the two another id`
      );
    }
  }
  /**
   * A `feedback.rerun` or `{{ feedback.ID }}` naming a multi-node citation (Go: "a loop is not a rerun
   * target"): unlike `depends_on` and `{{ artifacts.ID }}`, neither stands for the exit — re-running the
   * citation would re-run one node of it, and its arcs are declared inside the fragment.
   */
  checkLoopRefs(node) {
    const rerun = isRecord(node.feedback) ? node.feedback.rerun : void 0;
    if (typeof rerun === "string" && this.exits.has(rerun)) {
      this.issue(
        node,
        `feedback.rerun names ${JSON.stringify(rerun)}, a node citing a nodes: fragment, which is not a rerun target (its id stands for the fragment's exit, and re-running that alone would not re-run the fragment); name a node of this graph, or declare the arc inside the fragment`
      );
    }
    for (const ref of stringsIn(node).flatMap((text) => placeholdersIn(text))) {
      if (ref.namespace !== "feedback" || ref.problem !== null || !this.exits.has(ref.name)) continue;
      this.issue(
        node,
        `${ref.token} names ${JSON.stringify(ref.name)}, a node citing a nodes: fragment: its feedback arcs are declared, and quoted, inside the fragment; quote the feedback of a node of this graph`
      );
    }
  }
  /** Splices the citing node `using` into `out`; `chain` is the fragment names cited on the way here. */
  splice(using, chain, out) {
    if (this.overBudget) {
      out.push(standIn(using));
      return;
    }
    const fragment = this.fragmentFor(using, chain);
    if (fragment === null) out.push(standIn(using));
    else if (fragment.kind === "single") this.spliceNode(using, fragment, [...chain, fragment.name], out);
    else this.spliceNodes(using, fragment, [...chain, fragment.name], out);
  }
  /** A `node:` fragment: its body, bindings filled in, under the citing node's own fields. */
  spliceNode(using, fragment, next, out) {
    const at = `use ${JSON.stringify(fragment.name)}`;
    const { use: _use, with: bound, prompt, ...overrides } = using;
    if (prompt !== void 0) {
      this.issue(
        using,
        `${at}: prompt may not be set beside use: \u2014 the fragment's prompt is its shape; change it through a substitution point, or write the node out`
      );
    }
    const body = this.substitute(using, at, fragment.node, isRecord(bound) ? bound : {});
    const merged = { ...body, ...overrides };
    if (!this.fits(using, fragment.name, out, 1)) {
      out.push(standIn(using));
      return;
    }
    this.record(using, fragment, next.length, {
      overridden: Object.keys(fragment.node).filter((key) => Object.hasOwn(overrides, key)),
      spliced: [],
      grants: touchedGrant(fragment.node, body) && !Object.hasOwn(overrides, "allowed_tools") ? [{ nodeId: using.id, tools: merged.allowed_tools }] : []
    });
    if (merged.use !== void 0) this.splice(merged, next, out);
    else out.push(merged);
  }
  /** A `nodes:` fragment: each node as `USING/INNER`, wired in where the citing node stands. */
  spliceNodes(using, fragment, next, out) {
    const at = `use ${JSON.stringify(fragment.name)}`;
    for (const key of Object.keys(using)) {
      if (!WIRING.includes(key)) {
        this.issue(
          using,
          `${at}: ${key} cannot be set on a node citing a nodes: fragment \u2014 it may set only ${WIRING.join(", ")}; give the fragment a substitution point, or use another fragment`
        );
      }
    }
    if (using.depends_on !== void 0 && !Array.isArray(using.depends_on)) {
      this.issue(using, `${at}: depends_on must be a list of node ids`);
    }
    if (!this.fits(using, fragment.name, out, fragment.nodes.length)) {
      out.push(standIn(using));
      return;
    }
    const prefix = `${using.id}/`;
    const declared = new Set(fragment.nodes.map((node) => node.id));
    const inner = (name) => declared.has(name) ? prefix + name : void 0;
    const renamed = fragment.nodes.map((node) => namespaced(node, prefix, inner));
    const bindings = isRecord(using.with) ? using.with : {};
    const nodes = this.substitute(using, at, renamed, bindings);
    for (const node of nodes) {
      if (!Array.isArray(node.depends_on) || node.depends_on.length === 0) {
        if (Array.isArray(using.depends_on)) node.depends_on = [...using.depends_on];
        else delete node.depends_on;
      }
      if (using.cwd !== void 0) node.cwd = using.cwd;
      if (using.worktree !== void 0) node.worktree = using.worktree;
    }
    this.exits.set(using.id, prefix + fragment.exit);
    this.record(using, fragment, next.length, {
      overridden: [],
      spliced: nodes.filter((node) => node.use === void 0).map((node) => node.id),
      grants: nodes.flatMap(
        (node, index) => touchedGrant(renamed[index] ?? {}, node) ? [{ nodeId: node.id, tools: node.allowed_tools }] : []
      )
    });
    for (const node of nodes) {
      if (node.use !== void 0) this.splice(node, next, out);
      else out.push(node);
    }
  }
  /** Rewrites, in every spliced node, a reference to a multi-node citation into one to its exit. */
  pointAtExits(nodes) {
    if (this.exits.size === 0) return [...nodes];
    const exitOf = (id) => {
      let current = this.exits.get(id);
      for (let hops = 0; current !== void 0 && this.exits.has(current) && hops < 16; hops += 1) {
        current = this.exits.get(current);
      }
      return current;
    };
    return nodes.map((node) => {
      if (!isRecord(node)) return node;
      const pointed = renameRefsIn(node, exitOf, ["artifacts"]);
      if (Array.isArray(node.depends_on)) {
        pointed.depends_on = node.depends_on.map(
          (parent) => typeof parent === "string" ? exitOf(parent) ?? parent : parent
        );
      }
      return pointed;
    });
  }
  /** Records a resolved citation, and (once per fragment) its unreferenced substitution points. */
  record(using, fragment, depth, what) {
    const { name: fragmentName, description, location } = fragment;
    const nodeId = using.id;
    this.splices.push({ nodeId, fragment: fragmentName, description, location, depth, ...what });
    if (this.splices.some((s) => s.fragment === fragmentName && s !== this.splices.at(-1))) return;
    for (const point of fragment.unreferenced) {
      this.notes.push({
        nodeId,
        reason: `use ${JSON.stringify(fragmentName)} (${location}): substitution point ${JSON.stringify(point)} is declared but never referenced in the fragment's body, so every citation must bind a value that goes nowhere (drift: the body moved, the declaration did not); remove it from substitutions, or put {{ with.${point} }} where it was meant to go`
      });
    }
  }
  /** The fragment `using` cites with valid bindings, or `null` after reporting why not. */
  fragmentFor(using, chain) {
    const name = using.use;
    if (typeof using.id !== "string" || using.id.trim() === "") {
      this.issue(using, "a node with use: needs an id \u2014 the spliced node(s) are named after it");
      return null;
    }
    if (typeof name !== "string") {
      this.issue(using, `use: must be a fragment name (got ${Array.isArray(name) ? "a list" : typeof name})`);
      return null;
    }
    const at = `use ${JSON.stringify(name)}`;
    const problem = fragmentNameProblem(name);
    if (problem !== null) {
      this.issue(using, `${at}: ${problem}`);
      return null;
    }
    const trail = [...chain, name].map((link) => JSON.stringify(link));
    if (chain.includes(name)) {
      const cycle = [...chain.slice(chain.indexOf(name)), name].map((link) => JSON.stringify(link));
      this.issue(
        using,
        `${at}: fragment ${cycle.join(" cites ")} \u2014 a citation cycle could never finish splicing; remove one of those use: lines`
      );
      return null;
    }
    if (chain.length + 1 > MAX_FRAGMENT_DEPTH) {
      this.issue(
        using,
        `${at}: the citation chain ${trail.join(" \u2192 ")} is ${trail.length} fragments deep; a fragment may cite fragments at most ${MAX_FRAGMENT_DEPTH} deep \u2014 write one level out in full`
      );
      return null;
    }
    const fragment = this.judge(using, name);
    if (fragment === null) return null;
    if (using.with !== void 0 && !isRecord(using.with)) {
      this.issue(using, `${at}: with: must be a mapping of substitution point \u2192 value`);
      return null;
    }
    const bindings = isRecord(using.with) ? using.with : {};
    const declared = fragment.substitutions;
    const missing = declared.filter((point) => !Object.hasOwn(bindings, point));
    const extra = Object.keys(bindings).filter((point) => !declared.includes(point));
    for (const point of missing) {
      this.issue(
        using,
        `${at}: with: does not bind ${JSON.stringify(point)}, which ${fragment.location} declares \u2014 every substitution point needs a value (bind "" for none)`
      );
    }
    for (const point of extra) {
      this.issue(
        using,
        `${at}: with: binds ${JSON.stringify(point)}, which ${fragment.location} does not declare (it declares: ${declared.length > 0 ? declared.join(", ") : "nothing"})`
      );
    }
    return missing.length > 0 || extra.length > 0 ? null : fragment;
  }
  /** The judged fragment `name`; its file's problems are reported once, on the first node citing it. */
  judge(using, name) {
    let entry = this.judged.get(name);
    const first = entry === void 0;
    if (entry === void 0) {
      entry = { judgement: judgeFragment(name, this.library.get(name)), firstCitedBy: using.id };
      this.judged.set(name, entry);
    }
    const { judgement } = entry;
    if (judgement.ok) return judgement.fragment;
    const at = `use ${JSON.stringify(name)}`;
    if (first)
      for (const reason of judgement.reasons) this.issue(using, `${at} (${judgement.location}): ${reason}`);
    else
      this.issue(
        using,
        `${at}: ${judgement.location} cannot be spliced (its problems are listed at node ${JSON.stringify(entry.firstCitedBy)})`
      );
    return null;
  }
  substitute(using, at, body, bindings) {
    const substituted = substituteWith(body, bindings);
    for (const problem of substituted.problems) this.issue(using, `${at}: ${problem}`);
    return substituted.value;
  }
};
function touchedGrant(before, after) {
  return JSON.stringify(before.allowed_tools) !== JSON.stringify(after.allowed_tools);
}
function namespaced(node, prefix, inner) {
  const copy = renameRefsIn(structuredClone(node), inner);
  copy.id = prefix + String(node.id);
  if (Array.isArray(node.depends_on)) {
    copy.depends_on = node.depends_on.map(
      (parent) => typeof parent === "string" ? inner(parent) ?? parent : parent
    );
  }
  if (isRecord(node.feedback) && typeof node.feedback.rerun === "string") {
    copy.feedback = { ...node.feedback, rerun: inner(node.feedback.rerun) ?? node.feedback.rerun };
  }
  return copy;
}
function standIn(using) {
  const { use: _use, with: _with, ...rest } = using;
  if (typeof using.id !== "string") return rest;
  return {
    id: using.id,
    ...using.depends_on !== void 0 ? { depends_on: using.depends_on } : {},
    prompt: `(not spliced: use ${JSON.stringify(using.use)} \u2014 see the errors above)`
  };
}

// src/graph/schema.ts
var PERMISSION_MODES = [
  "acceptEdits",
  "auto",
  "bypassPermissions",
  "dontAsk",
  "manual",
  "plan"
];
var RETRY_CAUSES = [
  "nonzero_exit",
  "run_error",
  "timeout",
  "output_error",
  "budget_exceeded",
  "verify_failed",
  "result_mismatch"
];
var GRAPH_DEFAULTS = {
  concurrency: 4,
  concurrencyCap: 10,
  onFail: "halt",
  type: "agent",
  handoff: "artifact",
  permissionMode: "dontAsk",
  nodeTimeoutMs: 20 * 6e4,
  verifyTimeoutMs: 2 * 6e4,
  verifyTimeoutCeilingMs: 10 * 6e4,
  expectExit: 0
};
var durationText = external_exports.union([external_exports.string(), external_exports.number()]).transform((value) => String(value));
var VerifySpecSchema = external_exports.strictObject({
  command: external_exports.string().optional(),
  cwd: external_exports.string().optional(),
  timeout: durationText.optional(),
  expect_exit: external_exports.number().int().optional(),
  output_matches: external_exports.string().optional()
});
var SuccessCheckSpecSchema = external_exports.strictObject({
  exit_zero: external_exports.boolean().optional(),
  result_matches: external_exports.string().optional(),
  verify: VerifySpecSchema.optional()
});
var RetrySpecSchema = external_exports.strictObject({
  max: external_exports.number().int().optional(),
  on: external_exports.array(external_exports.string()).optional()
});
var FeedbackSpecSchema = external_exports.strictObject({
  rerun: external_exports.string().optional(),
  max: external_exports.number().int().optional()
});
var CompletionVerifySpecSchema = external_exports.strictObject({
  command: external_exports.string().optional(),
  timeout: durationText.optional(),
  expect_exit: external_exports.number().int().optional(),
  todos: external_exports.string().optional(),
  require_plan: external_exports.boolean().optional()
});
var CompletionSpecSchema = external_exports.strictObject({
  verify: CompletionVerifySpecSchema.optional(),
  max_attempts: external_exports.number().int().optional()
});
var NodeSpecSchema = external_exports.strictObject({
  id: external_exports.string(),
  type: external_exports.enum(["agent", "claude-run", "gate"]).transform((type) => type === "gate" ? "gate" : "agent").optional(),
  depends_on: external_exports.array(external_exports.string()).optional(),
  prompt: external_exports.string().optional(),
  cwd: external_exports.string().optional(),
  allowed_tools: external_exports.array(external_exports.string()).optional(),
  permission_mode: external_exports.enum(PERMISSION_MODES).optional(),
  timeout: durationText.optional(),
  budget_usd: external_exports.number().optional(),
  handoff: external_exports.enum(["artifact", "session"]).optional(),
  success_check: SuccessCheckSpecSchema.optional(),
  retry: RetrySpecSchema.optional(),
  feedback: FeedbackSpecSchema.optional(),
  completion: CompletionSpecSchema.optional(),
  /** A Claude Code subagent to run the node as (`claude --agent NAME`); claude runtime only. */
  agent: external_exports.string().optional(),
  /** A managed git worktree the node runs in, shared by every node naming it; exclusive with `cwd`. */
  worktree: external_exports.string().optional(),
  /** What a person reads when deciding a gate; gates only. */
  description: external_exports.string().optional()
});
var GraphSpecSchema = external_exports.strictObject({
  name: external_exports.string().optional(),
  version: external_exports.union([external_exports.string(), external_exports.number()]).transform((value) => String(value)).optional(),
  inputs: external_exports.array(external_exports.string()).optional(),
  concurrency: external_exports.number().int().optional(),
  on_fail: external_exports.enum(["halt", "continue"]).optional(),
  nodes: external_exports.array(NodeSpecSchema).optional()
});
var NODE_OBJECT_FIELDS = {
  "": Object.keys(NodeSpecSchema.shape),
  success_check: Object.keys(SuccessCheckSpecSchema.shape),
  "success_check.verify": Object.keys(VerifySpecSchema.shape),
  retry: Object.keys(RetrySpecSchema.shape),
  feedback: Object.keys(FeedbackSpecSchema.shape),
  completion: Object.keys(CompletionSpecSchema.shape),
  "completion.verify": Object.keys(CompletionVerifySpecSchema.shape)
};
var GRAPH_FIELDS = Object.keys(GraphSpecSchema.shape);

// src/graph/validate-feedback.ts
function feedbackIssues(nodes) {
  const issues = [];
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const bodyOwner = /* @__PURE__ */ new Map();
  nodes.forEach((node, index) => {
    const arc = node.feedback;
    if (arc === void 0 || node.type === "gate") return;
    const report = (reason) => {
      issues.push(nodeIssue(node, index, reason));
    };
    if (arc.max === void 0 || arc.max < 1) {
      report(
        `feedback.max must be declared and >= 1 (got ${arc.max ?? "nothing"}) \u2014 a feedback loop has no default bound`
      );
    }
    const target = arc.rerun;
    if (target === void 0 || target.trim() === "") {
      report("feedback needs rerun: the depends_on ancestor the re-run starts from");
      return;
    }
    if (!byId.has(target)) {
      report(`feedback.rerun names unknown node ${JSON.stringify(target)}`);
      return;
    }
    if (target === node.id || !ancestorsOf(nodes, node.id).has(target)) {
      report(
        `feedback.rerun ${JSON.stringify(target)} is not a proper depends_on ancestor of this node \u2014 a feedback arc points strictly backward along an existing depends_on path`
      );
      return;
    }
    const body = feedbackBodyOf(nodes, node.id);
    const inBody = new Set(body);
    for (const member of body) {
      const owner = bodyOwner.get(member);
      if (owner !== void 0) {
        report(
          `feedback bodies must be disjoint: ${JSON.stringify(member)} is already in the body of ${JSON.stringify(owner)}'s arc`
        );
        continue;
      }
      bodyOwner.set(member, node.id);
    }
    for (const member of body) {
      const spec = byId.get(member);
      if (spec?.type === "gate") {
        report(
          `feedback body contains gate ${JSON.stringify(member)} \u2014 a later round would replay an approval nobody gave for it`
        );
      }
      const parents = spec?.depends_on ?? [];
      const [parent] = parents;
      if (spec?.handoff === "session" && parents.length === 1 && parent !== void 0 && !inBody.has(parent)) {
        report(
          `feedback body node ${JSON.stringify(member)} has handoff: session with parent ${JSON.stringify(parent)} outside the body \u2014 a later round would continue a session an earlier round already continued`
        );
      }
      if (member === node.id) continue;
      for (const dependent of dependentsOf(nodes, member)) {
        if (!inBody.has(dependent)) {
          report(
            `feedback body has a side exit: ${JSON.stringify(dependent)} depends on body node ${JSON.stringify(member)} but is outside the loop, so it would see whichever round wrote last; make it depend on ${JSON.stringify(node.id)} instead`
          );
        }
      }
    }
  });
  return issues;
}

// src/graph/pattern.ts
function compilePattern(source) {
  try {
    return { ok: true, pattern: { source, re2: RE2JS.compile(source) } };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `invalid regex ${JSON.stringify(source)}: ${why}` };
  }
}
function searchPattern(pattern, text) {
  return pattern.re2.test(text);
}

// src/graph/verify-runs-nothing.ts
function verifyCommandRunsNothing(text) {
  return text.split("\n").map((line) => line.trim()).every((line) => line === "" || line.startsWith("#"));
}

// src/graph/validate-node.ts
var PROCESS_ONLY_FIELDS = [
  "prompt",
  "cwd",
  "allowed_tools",
  "permission_mode",
  "timeout",
  "budget_usd",
  "retry",
  "feedback",
  "completion",
  "agent"
];
function nodeFieldIssues(node, index, limits) {
  const reasons = node.type === "gate" ? gateReasons(node) : agentReasons(node, limits);
  reasons.push(...placementReasons(node));
  return reasons.map((reason) => nodeIssue(node, index, reason));
}
function placementReasons(node) {
  const worktree = node.worktree ?? "";
  if (worktree === "") return [];
  const reasons = [];
  if (!NODE_ID_SEGMENT.test(worktree)) {
    reasons.push(
      `worktree ${JSON.stringify(worktree)} must be one path element \u2014 letters, digits, ".", "_" or "-", starting with a letter or digit \u2014 since it names a directory and a branch`
    );
  } else if (worktree.includes("..") || worktree.endsWith(".") || worktree.endsWith(".lock")) {
    reasons.push(
      `worktree ${JSON.stringify(worktree)} cannot end a git branch name (it holds "..", or ends with "." or ".lock"), and its branch is evidence-gate/<run id>/NAME: rename it`
    );
  }
  if ((node.cwd ?? "") !== "") {
    reasons.push(
      `worktree and cwd are exclusive: the worktree ${JSON.stringify(worktree)} is where this node runs; remove cwd (or worktree)`
    );
  }
  return reasons;
}
function gateReasons(node) {
  const reasons = [];
  for (const field of PROCESS_ONLY_FIELDS) {
    if (node[field] !== void 0) {
      reasons.push(
        `a gate spawns no process, so it may not set ${field}; remove it or make this an agent node`
      );
    }
  }
  const check = node.success_check;
  if (check !== void 0 && Object.keys(check).length > 0) {
    reasons.push("a gate may not set success_check: a person's approval is its only check");
  }
  if (node.handoff === "session") {
    reasons.push("a gate has no session to continue, so it may not set handoff: session");
  }
  return reasons;
}
function agentReasons(node, limits) {
  const reasons = [];
  if (node.prompt === void 0 || node.prompt.trim() === "") {
    reasons.push("an agent node needs a non-empty prompt \u2014 it is all the CLI is told");
  }
  if (node.description !== void 0) {
    reasons.push(
      "description is what a person reads when deciding a gate, so it is valid only on type: gate (this node is type: agent, the Go CLI's type: claude-run)"
    );
  }
  if (node.agent !== void 0 && node.agent !== "" && node.agent.trim() !== node.agent) {
    reasons.push(
      node.agent.trim() === "" ? 'agent is only whitespace: name a subagent, or write agent: "" (none)' : `agent ${JSON.stringify(node.agent)} has surrounding whitespace, which claude would not resolve`
    );
  }
  if (node.timeout !== void 0) {
    const timeout = parseDuration(node.timeout);
    if (!timeout.ok) reasons.push(`timeout: ${timeout.message}`);
    else if (timeout.ms <= 0) reasons.push(`timeout ${JSON.stringify(node.timeout)} must be positive`);
  }
  if (node.budget_usd !== void 0 && !(Number.isFinite(node.budget_usd) && node.budget_usd > 0)) {
    reasons.push(`budget_usd must be a positive number of US dollars (got ${node.budget_usd})`);
  }
  for (const tool of node.allowed_tools ?? []) {
    if (tool.trim() === "") reasons.push("allowed_tools has an empty entry");
    else if (tool.trim() !== tool)
      reasons.push(`allowed_tools entry ${JSON.stringify(tool)} has surrounding whitespace`);
  }
  const check = node.success_check;
  if (check?.result_matches !== void 0) {
    const compiled = compilePattern(check.result_matches);
    if (!compiled.ok) reasons.push(`success_check.result_matches: ${compiled.message}`);
  }
  if (check?.verify !== void 0) reasons.push(...verifyReasons(check.verify, limits));
  if (node.retry !== void 0) {
    const { max, on } = node.retry;
    if (max !== void 0 && max < 0) reasons.push(`retry.max must be >= 0 (got ${max})`);
    for (const cause of on ?? []) {
      if (!RETRY_CAUSES.includes(cause)) {
        reasons.push(
          `retry.on: unknown cause ${JSON.stringify(cause)} (want one of: ${RETRY_CAUSES.join(", ")})`
        );
      }
    }
  }
  if (node.completion !== void 0) reasons.push(...completionReasons(node.completion, limits));
  return reasons;
}
function verifyReasons(verify, limits) {
  const reasons = [];
  if (verify.command === void 0 || verify.command.trim() === "") {
    reasons.push(
      "success_check.verify needs a command \u2014 a verify step with nothing to run would pass every time"
    );
  } else if (verifyCommandRunsNothing(verify.command)) {
    reasons.push(
      "success_check.verify.command is only # comments \u2014 it runs nothing and would pass every time; give the command that checks the work"
    );
  }
  reasons.push(...commandLimitReasons("success_check.verify", verify, limits));
  if (verify.output_matches !== void 0) {
    const compiled = compilePattern(verify.output_matches);
    if (!compiled.ok) reasons.push(`success_check.verify.output_matches: ${compiled.message}`);
  }
  return reasons;
}
function commandLimitReasons(field, command, limits) {
  const reasons = [];
  if (command.timeout !== void 0) {
    const timeout = parseDuration(command.timeout);
    if (!timeout.ok) {
      reasons.push(`${field}.timeout: ${timeout.message}`);
    } else if (timeout.ms <= 0) {
      reasons.push(`${field}.timeout ${JSON.stringify(command.timeout)} must be positive`);
    } else if (timeout.ms > limits.verifyTimeoutCeilingMs) {
      reasons.push(
        `${field}.timeout ${command.timeout} exceeds the ${formatDuration(limits.verifyTimeoutCeilingMs)} ceiling \u2014 a verify command runs on its node's critical path; split long work into its own node`
      );
    }
  }
  if (command.expect_exit !== void 0 && (command.expect_exit < 0 || command.expect_exit > 255)) {
    reasons.push(`${field}.expect_exit must be an exit status from 0 to 255 (got ${command.expect_exit})`);
  }
  return reasons;
}
function completionReasons(completion, limits) {
  const reasons = [];
  const { max_attempts: maxAttempts, verify } = completion;
  if (maxAttempts === void 0 || maxAttempts < 1) {
    reasons.push(
      `completion.max_attempts must be declared and >= 1 (got ${maxAttempts ?? "nothing"}) \u2014 there is no default`
    );
  }
  if (verify === void 0) {
    reasons.push("completion needs a verify: { command: \u2026 } or { todos: all_done }");
    return reasons;
  }
  const hasCommand = verify.command !== void 0;
  const hasTodos = verify.todos !== void 0;
  if (hasCommand === hasTodos) {
    reasons.push("completion.verify must set exactly one of command or todos: all_done");
  }
  if (hasCommand && verify.command?.trim() === "") {
    reasons.push(
      "completion.verify.command is empty \u2014 a completion check with nothing to run would pass every time"
    );
  } else if (hasCommand && verifyCommandRunsNothing(verify.command ?? "")) {
    reasons.push(
      "completion.verify.command is only # comments \u2014 it runs nothing and would pass every time; give the command that checks the work"
    );
  }
  if (hasTodos && verify.todos !== "all_done") {
    reasons.push(`completion.verify.todos must be all_done (got ${JSON.stringify(verify.todos)})`);
  }
  if (hasCommand) reasons.push(...commandLimitReasons("completion.verify", verify, limits));
  if (!hasCommand && (verify.timeout !== void 0 || verify.expect_exit !== void 0)) {
    reasons.push(
      "completion.verify.timeout and expect_exit belong to a command; todos: all_done runs nothing"
    );
  }
  if (!hasTodos && verify.require_plan !== void 0) {
    reasons.push(
      "completion.verify.require_plan belongs to todos: all_done; a command has no plan to require"
    );
  }
  return reasons;
}

// src/graph/validate-placeholders.ts
function templatedFields(node) {
  const fields = [
    ["prompt", node.prompt],
    ["cwd", node.cwd],
    ["success_check.verify.command", node.success_check?.verify?.command],
    ["success_check.verify.cwd", node.success_check?.verify?.cwd],
    ["completion.verify.command", node.completion?.verify?.command],
    ["description", node.description]
  ];
  return fields.filter((field) => field[1] !== void 0);
}
function placeholderIssues(nodes) {
  const issues = [];
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const firstById = indexById(nodes);
  const bodies = /* @__PURE__ */ new Map();
  for (const node of nodes) {
    if (node.feedback !== void 0) bodies.set(node.id, new Set(feedbackBodyOf(nodes, node.id)));
  }
  nodes.forEach((node, index) => {
    const fields = templatedFields(node);
    if (fields.length === 0) return;
    for (const [field, template] of fields) {
      for (const ref of placeholdersIn(template)) {
        const at = `${field}: ${ref.token}`;
        const report = (why) => {
          issues.push(nodeIssue(node, index, `${at} ${why}`));
        };
        if (ref.problem !== null) {
          report(`cannot resolve: ${ref.problem}`);
          continue;
        }
        if (ref.namespace === "artifacts") {
          const producer = byId.get(ref.name);
          if (producer === void 0) report(`names unknown node ${JSON.stringify(ref.name)}`);
          else if (producer.type === "gate")
            report(`names gate ${JSON.stringify(ref.name)}, which saves no output`);
          else if (ref.name === node.id || !hasAncestor(firstById, node.id, ref.name)) {
            report(
              `names ${JSON.stringify(ref.name)}, which is not an ancestor of this node \u2014 its output may not exist when this node starts; add it to depends_on (directly or through a parent)`
            );
          }
        } else if (ref.namespace === "feedback") {
          const body = bodies.get(ref.name);
          if (body === void 0) {
            report(
              `names ${JSON.stringify(ref.name)}, which declares no feedback arc \u2014 it could never resolve`
            );
          } else if (!body.has(node.id)) {
            report(
              `is only meaningful inside the body of ${JSON.stringify(ref.name)}'s feedback arc \u2014 here it would always be empty`
            );
          }
        }
      }
    }
  });
  return issues;
}

// src/graph/validate.ts
var INPUT_NAME = /^[A-Za-z0-9._/-]+$/;
function validateGraph(spec, options = {}) {
  const nodes = spec.nodes ?? [];
  const limits = {
    verifyTimeoutCeilingMs: options.verifyTimeoutCeilingMs ?? GRAPH_DEFAULTS.verifyTimeoutCeilingMs
  };
  return [
    ...graphLevelIssues(spec),
    ...idIssues(nodes),
    ...dependencyIssues(nodes),
    ...sessionHandoffIssues(nodes),
    ...nodes.flatMap((node, index) => nodeFieldIssues(node, index, limits)),
    ...feedbackIssues(nodes),
    ...placeholderIssues(nodes)
  ];
}
function graphLevelIssues(spec) {
  const reasons = [];
  const cap = GRAPH_DEFAULTS.concurrencyCap;
  if (spec.concurrency !== void 0 && (spec.concurrency < 1 || spec.concurrency > cap)) {
    reasons.push(`concurrency must be from 1 to ${cap} (got ${spec.concurrency})`);
  }
  if ((spec.nodes ?? []).length === 0) reasons.push("graph has no nodes");
  const seen = /* @__PURE__ */ new Set();
  for (const input of spec.inputs ?? []) {
    if (!INPUT_NAME.test(input)) {
      reasons.push(
        `input name ${JSON.stringify(input)} cannot be referenced as {{ inputs.NAME }}: use letters, digits, ".", "_", "-" or "/"`
      );
    } else if (seen.has(input)) {
      reasons.push(`input ${JSON.stringify(input)} is listed more than once`);
    }
    seen.add(input);
  }
  return reasons.map((reason) => ({ nodeId: null, reason }));
}

// src/graph/graph.ts
function attemptsInAll(node) {
  return node.retry.on.length === 0 ? 1 : 1 + node.retry.max;
}
function buildGraph(spec, source) {
  const specNodes = spec.nodes ?? [];
  const nodes = specNodes.map((node) => buildNode(node, specNodes));
  return {
    source,
    name: spec.name ?? null,
    version: spec.version ?? null,
    inputs: spec.inputs ?? [],
    concurrency: spec.concurrency ?? GRAPH_DEFAULTS.concurrency,
    on_fail: spec.on_fail ?? GRAPH_DEFAULTS.onFail,
    nodes,
    nodes_by_id: new Map(nodes.map((node) => [node.id, node])),
    sinks: sinksOf(specNodes),
    spec
  };
}
function buildNode(node, all) {
  const check = node.success_check;
  const verify = check?.verify;
  const arc = node.feedback;
  const completion = node.completion;
  return {
    id: node.id,
    type: node.type ?? GRAPH_DEFAULTS.type,
    depends_on: node.depends_on ?? [],
    prompt: node.prompt ?? "",
    cwd: node.cwd === void 0 || node.cwd === "" ? null : node.cwd,
    allowed_tools: node.allowed_tools ?? [],
    permission_mode: node.permission_mode ?? GRAPH_DEFAULTS.permissionMode,
    timeout_ms: node.timeout === void 0 ? GRAPH_DEFAULTS.nodeTimeoutMs : validMs(node.timeout),
    budget_usd: node.budget_usd ?? null,
    handoff: node.handoff ?? GRAPH_DEFAULTS.handoff,
    success_check: {
      exit_zero: check?.exit_zero ?? false,
      result_matches: check?.result_matches === void 0 ? null : validPattern(check.result_matches),
      verify: verify === void 0 ? null : {
        command: verify.command ?? "",
        cwd: verify.cwd === void 0 || verify.cwd === "" ? null : verify.cwd,
        timeout_ms: verify.timeout === void 0 ? GRAPH_DEFAULTS.verifyTimeoutMs : validMs(verify.timeout),
        expect_exit: verify.expect_exit ?? GRAPH_DEFAULTS.expectExit,
        output_matches: verify.output_matches === void 0 ? null : validPattern(verify.output_matches)
      }
    },
    // Validation has proven every cause is in RETRY_CAUSES.
    retry: { max: node.retry?.max ?? 0, on: node.retry?.on ?? [] },
    feedback: arc === void 0 ? null : { rerun: arc.rerun ?? "", max: arc.max ?? 0, body: feedbackBodyOf(all, node.id) },
    completion: completion === void 0 ? null : {
      verify: completion.verify?.command !== void 0 ? {
        kind: "command",
        command: completion.verify.command,
        timeout_ms: completion.verify.timeout === void 0 ? GRAPH_DEFAULTS.verifyTimeoutMs : validMs(completion.verify.timeout),
        expect_exit: completion.verify.expect_exit ?? GRAPH_DEFAULTS.expectExit
      } : { kind: "todos_all_done", require_plan: completion.verify?.require_plan === true },
      max_attempts: completion.max_attempts ?? 0
    },
    agent: emptyAsNull(node.agent),
    worktree: emptyAsNull(node.worktree),
    description: node.description ?? null
  };
}
function emptyAsNull(text) {
  return text === void 0 || text === "" ? null : text;
}
function validMs(text) {
  const parsed = parseDuration(text);
  if (!parsed.ok)
    throw new Error(`Internal error: unvalidated duration reached buildGraph: ${parsed.message}`);
  return parsed.ms;
}
function validPattern(source) {
  const compiled = compilePattern(source);
  if (!compiled.ok)
    throw new Error(`Internal error: unvalidated pattern reached buildGraph: ${compiled.message}`);
  return compiled.pattern;
}

// src/graph/salvage.ts
var MAX_ROUNDS = 8;
var REMOVED = /* @__PURE__ */ Symbol("removed");
function salvageSpec(raw, issues) {
  const data = structuredClone(raw);
  let pending = issues;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    for (const issue of pending) {
      if (!prune(data, issue)) return null;
    }
    sweep(data);
    const parsed = GraphSpecSchema.safeParse(data);
    if (parsed.success) return parsed.data;
    pending = parsed.error.issues;
  }
  return null;
}
function prune(data, issue) {
  const path = issue.path.filter((key) => typeof key !== "symbol");
  if (issue.code === "unrecognized_keys") {
    const target = valueAt(data, path);
    if (isContainer(target)) for (const key of issue.keys) Reflect.deleteProperty(target, key);
    return true;
  }
  let at = path;
  while (at.length > 0) {
    const parent = valueAt(data, at.slice(0, -1));
    const key = at[at.length - 1];
    if (isContainer(parent) && key !== void 0 && key in parent) {
      if (Array.isArray(parent) && typeof key === "number") parent[key] = REMOVED;
      else Reflect.deleteProperty(parent, key);
      return true;
    }
    at = at.slice(0, -1);
  }
  return false;
}
function sweep(value) {
  if (!isContainer(value)) return;
  if (Array.isArray(value)) {
    const kept = value.filter((item) => item !== REMOVED);
    value.splice(0, value.length, ...kept);
  }
  for (const child of Object.values(value)) sweep(child);
}
function valueAt(root, path) {
  let current = root;
  for (const key of path) {
    if (!isContainer(current)) return void 0;
    current = current[key];
  }
  return current;
}
function isContainer(value) {
  return typeof value === "object" && value !== null;
}

// src/graph/schema-issues.ts
var CITATION_FIELDS = /* @__PURE__ */ new Set(["use", "with"]);
var CITATION_HINT = "; use:/with: cite a fragment file, which is spliced only when a graph file is loaded with the fragments/ folder beside it (evidence-gate lint, run and resolve do); this graph was loaded as already-spliced data";
function schemaIssues(issues, raw) {
  return issues.flatMap((issue) => describeIssue(issue, raw));
}
function describeIssue(issue, raw) {
  const path = issue.path.filter((key) => typeof key !== "symbol");
  const { nodeId, prefix, relative } = locate(path, raw);
  const at = (field) => JSON.stringify(prefix + renderPath(field));
  const make = (reason) => ({ nodeId, reason });
  switch (issue.code) {
    case "unrecognized_keys": {
      const inNode = path[0] === "nodes" && typeof path[1] === "number";
      const shapeKey = relative.filter((key) => typeof key === "string").join(".");
      const known = inNode ? NODE_OBJECT_FIELDS[shapeKey] : shapeKey === "" ? GRAPH_FIELDS : void 0;
      return issue.keys.map((key) => {
        const goHint = inNode && shapeKey === "" && CITATION_FIELDS.has(key) ? CITATION_HINT : !inNode && shapeKey === "" && isRecord2(raw) && isRecord2(raw[key]) ? anchorHolderHint(key) : "";
        const knownList = known === void 0 ? "" : ` (known fields: ${known.join(", ")})`;
        return make(`unknown field ${at([...relative, key])}${goHint}${knownList}`);
      });
    }
    case "invalid_type": {
      if (issue.input === void 0) return [make(`missing required field ${at(relative)}`)];
      const subject = relative.length === 0 && prefix !== "" ? prefix.replace(/\.$/, "") : `field ${at(relative)}`;
      return [
        make(
          `${subject} must be ${EXPECTED[issue.expected] ?? issue.expected} (got ${describe(issue.input)})`
        )
      ];
    }
    case "invalid_value":
      return [
        make(
          `field ${at(relative)} must be one of: ${issue.values.map(String).join(", ")} (got ${describe(issue.input)})`
        )
      ];
    case "invalid_union": {
      const expected = issue.errors.flatMap((branch) => {
        const first = branch[0];
        return first?.code === "invalid_type" ? [EXPECTED[first.expected] ?? first.expected] : [];
      });
      return [make(`field ${at(relative)} must be ${expected.join(" or ")} (got ${describe(issue.input)})`)];
    }
    default:
      return [make(`field ${at(relative)}: ${issue.message}`)];
  }
}
function anchorHolderHint(key) {
  return `; the Go CLI ignores a top-level key it does not know, so a file may keep a YAML anchor there, but here every key must be a field: anchor the mapping where it is first merged instead (\`- <<: &${key} {\u2026}\` in the first node, \`<<: *${key}\` in the others)`;
}
var EXPECTED = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "a mapping"
};
function locate(path, raw) {
  const [head, index] = path;
  if (head !== "nodes" || typeof index !== "number") return { nodeId: null, prefix: "", relative: [...path] };
  const rawNode = isRecord2(raw) && Array.isArray(raw.nodes) ? raw.nodes[index] : void 0;
  const id = isRecord2(rawNode) && typeof rawNode.id === "string" && rawNode.id.trim() !== "" ? rawNode.id : null;
  return { nodeId: id, prefix: id === null ? `nodes[${index}].` : "", relative: path.slice(2) };
}
function renderPath(path) {
  return path.map((key, at) => typeof key === "number" ? `[${key}]` : at === 0 ? key : `.${key}`).join("");
}
function describe(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (value instanceof Uint8Array) return "binary data (a !!binary value)";
  if (value instanceof Date) return "a date";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}\u2026` : value);
  return String(value);
}
function isRecord2(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// src/graph/load.ts
function loadGraphText(text, source, options = {}) {
  const read = readGraphText(text, source);
  return read.ok ? loadGraphObject(read.data, source, options) : read;
}
async function loadGraphFile(text, source, fragments, options = {}) {
  const read = readGraphText(text, source);
  if (!read.ok) return read;
  const library = await gatherFragments(read.data, fragments);
  return loadGraphObject(read.data, source, { ...options, fragments: library });
}
function loadGraphObject(value, source, options = {}) {
  const judged = judgeGraphObject(value, source, options);
  return judged.graph !== null ? { ok: true, graph: judged.graph, splices: judged.splices } : { ok: false, issues: judged.issues };
}
function judgeGraphObject(value, source, options = {}) {
  if (value === null || value === void 0) {
    return {
      issues: [{ nodeId: null, reason: `${source} is empty: a graph needs a nodes list` }],
      graph: null,
      data: null,
      splices: [],
      notes: []
    };
  }
  const cleaned = withoutNulls(value);
  if (!isRecord(cleaned)) {
    const got = Array.isArray(cleaned) ? "a list" : cleaned instanceof Uint8Array ? "binary data" : typeof cleaned;
    return {
      issues: [{ nodeId: null, reason: `a graph must be a mapping with a nodes list (got ${got})` }],
      graph: null,
      data: null,
      splices: [],
      notes: []
    };
  }
  const { fragments, ...validateOptions } = options;
  const spliced = fragments === void 0 ? { data: cleaned, issues: [], splices: [], notes: [] } : resolveFragments(cleaned, fragments);
  const raw = spliced.data;
  const { splices, notes } = spliced;
  const parsed = GraphSpecSchema.safeParse(raw, { reportInput: true });
  if (parsed.success && spliced.issues.length === 0) {
    const issues2 = validateGraph(parsed.data, validateOptions);
    const graph = issues2.length === 0 ? buildGraph(parsed.data, source) : null;
    return { issues: issues2, graph, data: raw, splices, notes };
  }
  if (parsed.success) {
    const issues2 = [...spliced.issues, ...validateGraph(parsed.data, validateOptions)];
    return { issues: uniqueIssues(issues2), graph: null, data: raw, splices, notes };
  }
  const salvaged = salvageSpec(raw, parsed.error.issues);
  const issues = [
    ...spliced.issues,
    ...schemaIssues(parsed.error.issues, raw),
    ...salvaged === null ? [] : validateGraph(salvaged, validateOptions)
  ];
  return { issues: uniqueIssues(issues), graph: null, data: raw, splices, notes };
}
function uniqueIssues(issues) {
  const seen = /* @__PURE__ */ new Set();
  return issues.filter((issue) => {
    const key = `${issue.nodeId}\0${issue.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

// src/run/request-fields.ts
function readVerifyEnv(text, o, errors) {
  const names = (text ?? "").split(o.separators).map((s) => s.trim()).filter((s) => s !== "");
  errors.push(...verifyEnvProblems(names, o.label));
  return names;
}
function readVerifyRepeat(text, label, errors) {
  if (text === void 0 || text.trim() === "") return void 0;
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (Number.isInteger(n) && n >= 1 && n <= MAX_VERIFY_REPEAT) return n;
  errors.push(
    `${label} ${JSON.stringify(text)}: give a whole number from 1 to ${MAX_VERIFY_REPEAT} (how many times each verify command runs on the same tree)`
  );
  return void 0;
}

// src/engine/runtime-setup.ts
function modelCliEnd(problem) {
  return typeof problem === "string" ? { kind: "usage_error", message: problem } : { kind: "setup_failed", message: problem.message };
}
function executableFor(runtime, o) {
  return runtimeFor(runtime).executable(o);
}
function runtimeOptionsProblem(runtime, o) {
  return runtimeFor(runtime).optionsProblem(o);
}
function missingCliProblem(runtime, executable, baseEnv) {
  if (findExecutable(executable, baseEnv.PATH) !== null) return null;
  const where = `${JSON.stringify(executable)} is not an executable${executable.includes("/") ? "" : " on PATH"}`;
  return runtimeFor(runtime).missingCliMessage(where);
}
async function modelCliProblem(o, runtime, check) {
  const setupError = await o.beforeFirstModelCall?.(runtime) ?? null;
  if (setupError !== null) return setupError;
  if (!check.findExecutable) return null;
  return missingCliProblem(runtime, executableFor(runtime, o), o.baseEnv);
}
function runtimeGraphProblem(runtime, graph) {
  return runtimeFor(runtime).graphProblem(graph);
}
function runtimeWarnings(runtime, graph) {
  const model = runtimeFor(runtime);
  return graph.nodes.flatMap(
    (node, i) => node.type === "gate" ? [] : model.nodeWarnings(node, graph.spec.nodes?.[i]?.timeout !== void 0)
  );
}

// src/cli/flag-groups.ts
var RUN_TIMEOUT_OPTIONS = { timeout: { type: "string" } };
var MAX_RUN_TIMEOUT_MS = 7 * 24 * 36e5;
function runTimeoutFlags(f, errors) {
  const given = f.str("timeout");
  if (given === void 0) return {};
  const parsed = parseDuration(given);
  if (parsed.ok && parsed.ms >= 1e3 && parsed.ms <= MAX_RUN_TIMEOUT_MS)
    return { timeout: { ms: parsed.ms, limit: given, setting: "--timeout" } };
  if (parsed.ok) errors.push(`--timeout ${JSON.stringify(given)}: give a duration from 1s to 168h`);
  else errors.push(`--timeout: ${parsed.message}`);
  return {};
}
var LEG_OPTIONS = {
  ...RUN_TIMEOUT_OPTIONS,
  repo: { type: "string" },
  "runs-dir": { type: "string" },
  "claude-path": { type: "string" },
  "codex-path": { type: "string" },
  "codex-config": { type: "string", multiple: true },
  concurrency: { type: "string" },
  commit: { type: "boolean" }
};
function legFlags(f, errors) {
  let concurrency;
  const c = f.str("concurrency");
  if (c !== void 0) {
    const n = /^\d+$/.test(c) ? Number(c) : Number.NaN;
    if (!Number.isInteger(n) || n < 1 || n > 10)
      errors.push(
        `--concurrency must be a whole number from 1 to 10 (got ${/^[\w.+-]+$/.test(c) ? c : JSON.stringify(c)})`
      );
    else concurrency = n;
  }
  return {
    repo: f.str("repo") ?? ".",
    ...opt("runsDir", f.str("runs-dir")),
    ...opt("claudePath", f.str("claude-path")),
    ...opt("codexPath", f.str("codex-path")),
    codexConfig: codexConfigFlags(f),
    ...opt("concurrency", concurrency),
    commit: f.bool("commit"),
    ...runTimeoutFlags(f, errors)
  };
}
function codexConfigFlags(f) {
  return f.list("codex-config").map((entry) => {
    const parsed = parseCodexConfig(entry);
    return parsed.ok && parsed.pairs.length === 1 ? parsed.pairs[0] : entry;
  });
}
var VERIFY_TIMEOUT_OPTIONS = {
  "verify-timeout": { type: "string" }
};
function verifyTimeoutFlags(f, errors) {
  const vt = f.str("verify-timeout");
  if (vt === void 0) return {};
  const parsed = parseDuration(vt);
  if (parsed.ok && parsed.ms >= 1e3 && parsed.ms <= 24 * 36e5) return { verifyTimeoutMs: parsed.ms };
  if (parsed.ok) errors.push(`--verify-timeout ${JSON.stringify(vt)}: give a duration from 1s to 24h`);
  else errors.push(`--verify-timeout: ${parsed.message}`);
  return {};
}
var VERIFY_REPEAT_OPTIONS = {
  "verify-repeat": { type: "string" }
};
function verifyRepeatFlags(f, errors) {
  return opt("verifyRepeat", readVerifyRepeat(f.str("verify-repeat"), "--verify-repeat", errors));
}
var VERIFY_REPEAT_USAGE = `  --verify-repeat N            run each verify command N times (1-${MAX_VERIFY_REPEAT}) on the same tree; mixed
                               results are flaky, never a pass
`;
var VERIFY_REPEAT = {
  options: VERIFY_REPEAT_OPTIONS,
  usage: VERIFY_REPEAT_USAGE,
  read: verifyRepeatFlags
};
var VERIFY_BASE_OPTIONS = {
  "verify-base": { type: "boolean" },
  base: { type: "string" },
  "test-reports": { type: "string" }
};
function verifyBaseFlags(f, errors) {
  const verifyBase = f.bool("verify-base");
  const baseRef = f.str("base");
  if (baseRef !== void 0 && !verifyBase)
    errors.push("--base REF names the base --verify-base compares with: give --verify-base too");
  if (baseRef !== void 0 && (baseRef === "" || baseRef.startsWith("-")))
    errors.push(
      `--base ${JSON.stringify(baseRef)} is not a ref: give a branch, tag or commit (e.g. --base main)`
    );
  const given = f.str("test-reports");
  const testReports = given === void 0 ? void 0 : given.split(",").map((pattern) => pattern.trim()).filter((pattern) => pattern !== "");
  for (const pattern of testReports ?? []) {
    const problem = testReportsPatternProblem(pattern);
    if (problem !== null) errors.push(`--test-reports: ${problem}`);
  }
  if (testReports !== void 0 && testReports.length === 0)
    errors.push("--test-reports is empty: give comma-separated globs, e.g. --test-reports 'reports/*.xml'");
  return {
    verifyBase,
    ...opt("baseRef", baseRef),
    ...testReports !== void 0 && testReports.length > 0 ? { testReports } : {}
  };
}
var VERIFY_BASE_USAGE = `  --verify-base                also run each sink's verify command on the base (a worktree of its own) and
                               say fixed / passes on both / fails on both / introduced; never a verdict
  --base REF                   with --verify-base: the base is the merge-base with REF (default: the
                               start commit's first parent)
  --test-reports GLOBS         comma-separated JUnit XML / TAP files the verify command writes (relative
                               to its folder), read for the test receipt; added to the policy's
`;
var VERIFY_BASE = {
  options: VERIFY_BASE_OPTIONS,
  usage: VERIFY_BASE_USAGE,
  read: verifyBaseFlags
};
var FRESH_RUN_OPTIONS = {
  runtime: { type: "string" },
  model: { type: "string" },
  "working-directory": { type: "string" },
  ...VERIFY_TIMEOUT_OPTIONS,
  "verify-env": { type: "string" },
  ...VERIFY_REPEAT_OPTIONS,
  ...VERIFY_BASE_OPTIONS,
  "continue-on-fail": { type: "boolean" }
};
var RUNTIMES = ["claude", "codex"];
function freshRunFlags(f, errors) {
  const given = f.str("runtime") ?? "claude";
  const runtime = RUNTIMES.find((r) => r === given);
  if (runtime === void 0)
    errors.push(`--runtime ${JSON.stringify(given)} is not a runtime: use claude or codex`);
  else {
    const problem = runtimeOptionsProblem(runtime, {
      ...opt("model", f.str("model")),
      codexConfig: codexConfigFlags(f)
    });
    if (problem !== null) errors.push(problem);
  }
  const { verifyTimeoutMs } = verifyTimeoutFlags(f, errors);
  const verifyEnv = readVerifyEnv(f.str("verify-env"), { label: "--verify-env", separators: /,/ }, errors);
  return {
    runtime: runtime ?? "claude",
    ...opt("model", f.str("model")),
    ...opt("workingDirectory", f.str("working-directory")),
    ...opt("verifyTimeoutMs", verifyTimeoutMs),
    verifyEnv,
    ...verifyRepeatFlags(f, errors),
    ...verifyBaseFlags(f, errors),
    continueOnFail: f.bool("continue-on-fail")
  };
}
var REPORT_OPTIONS = {
  json: { type: "boolean" },
  repository: { type: "string" },
  sha: { type: "string" },
  "check-name": { type: "string" },
  "check-run-out": { type: "string" },
  "summary-out": { type: "string" }
};
function reportFlags(f, errors) {
  const repository = f.str("repository");
  const repositoryProblem = repository === void 0 ? null : repositoryFlagProblem(repository);
  if (repositoryProblem !== null) errors.push(repositoryProblem);
  const sha = f.str("sha");
  if (sha !== void 0 && !/^[0-9a-f]{40}$/i.test(sha)) {
    errors.push(`--sha ${JSON.stringify(sha)}: give the full 40-hex commit SHA`);
  }
  const checkName = f.str("check-name");
  if (checkName !== void 0 && checkName.trim() === "")
    errors.push("--check-name is empty: give the check run's name");
  const checkRunOut = f.str("check-run-out");
  if (sha !== void 0 && repository === void 0 && checkRunOut === void 0) {
    errors.push(
      "--sha names the commit a check run is posted on, but no check run is posted or recorded: give --repository OWNER/NAME or --check-run-out FILE with it, or drop --sha"
    );
  }
  if (repository !== void 0 && checkRunOut !== void 0) {
    errors.push(
      "--repository and --check-run-out were both given: post the check run, or record it to a file, not both"
    );
  }
  if (checkRunOut !== void 0 && checkRunOut === f.str("summary-out")) {
    errors.push("--check-run-out and --summary-out name the same file: give two files");
  }
  return {
    json: f.bool("json"),
    ...opt("repository", repository),
    ...opt("sha", sha),
    checkName: checkName ?? "evidence-gate",
    ...opt("checkRunOut", checkRunOut),
    ...opt("summaryOut", f.str("summary-out"))
  };
}
var FRESH_RUN_USAGE = `  --verify-env NAMES           comma-separated variables passed to the verify commands
${VERIFY_REPEAT_USAGE}${VERIFY_BASE_USAGE}  --runtime claude|codex       model CLI every node (and auto's planner) runs (default claude)
  --model M                    model passed to the CLI (claude --model, codex -m; default: the CLI's own)
  --working-directory DIR      folder to run in, resolved from --repo (inside the working tree)
  --continue-on-fail           prune only a failed node's descendants instead of halting
`;
var RUN_TIMEOUT_USAGE = `  --timeout DURATION           stop the whole run after DURATION (e.g. 30m): every running node's
                               processes are killed, the run ends timed_out, exit 124
`;
var LEG_USAGE = `${RUN_TIMEOUT_USAGE}  --repo DIR                   a folder in the repository's git working tree (default .); a sub-folder
                               is the working directory
  --commit                     commit the nodes' changes when the run ends
  --runs-dir DIR               where run directories are (default <repo>/.evidence-gate/runs)
  --claude-path PATH           the claude executable (default: claude on PATH)
  --codex-path PATH            the codex executable (default: codex on PATH)
  --codex-config KEY=VALUE     codex runs: passed as -c KEY=VALUE on every codex call, e.g. a provider or
                               gateway; only model, model_provider(s), model_* tuning, analytics.*,
                               otel.* and features.<name>=false keys (repeatable; not recorded: give them
                               again to resume)
`;
var REPORT_USAGE = `  --json                       print the ledger as JSON instead of the table (progress goes to stderr)
  --repository OWNER/NAME      post the check run to this repository (token from GITHUB_TOKEN)
  --sha SHA                    head SHA for the check run (default: the posted commit)
  --check-name NAME            check run name (default evidence-gate)
  --check-run-out FILE         write the check-run requests (method, path, body) to FILE instead of sending
  --summary-out FILE           write the Markdown ledger (the job summary) to FILE
`;
var LEG = { options: LEG_OPTIONS, usage: LEG_USAGE, read: legFlags };
var RUN_TIMEOUT = {
  options: RUN_TIMEOUT_OPTIONS,
  usage: RUN_TIMEOUT_USAGE,
  read: runTimeoutFlags
};
var FRESH_RUN = {
  options: FRESH_RUN_OPTIONS,
  usage: FRESH_RUN_USAGE,
  read: freshRunFlags
};
var VERIFY_TIMEOUT = {
  options: VERIFY_TIMEOUT_OPTIONS,
  usage: "",
  read: verifyTimeoutFlags
};
var REPORT = {
  options: REPORT_OPTIONS,
  usage: REPORT_USAGE,
  read: reportFlags
};

export {
  verifyCommandRunsNothing,
  searchPattern,
  isRecord,
  withoutNulls,
  readGraphText,
  fragmentsBeside,
  gatherFragments,
  RETRY_CAUSES,
  ancestorsOf,
  feedbackBodyOf,
  attemptsInAll,
  placeholdersIn,
  lookalikePlaceholdersIn,
  interpolate,
  formatIssue,
  nodeIssue,
  NODE_ID_PATTERN,
  formatSplice,
  templatedFields,
  validateGraph,
  loadGraphText,
  loadGraphFile,
  loadGraphObject,
  judgeGraphObject,
  uniqueIssues,
  modelCliEnd,
  executableFor,
  runtimeOptionsProblem,
  missingCliProblem,
  modelCliProblem,
  runtimeGraphProblem,
  runtimeWarnings,
  readVerifyEnv,
  VERIFY_REPEAT,
  VERIFY_BASE,
  LEG,
  RUN_TIMEOUT,
  FRESH_RUN,
  VERIFY_TIMEOUT,
  REPORT
};
