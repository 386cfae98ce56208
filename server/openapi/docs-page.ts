// `/docs`: a readable API reference rendered from the OpenAPI document. One self-contained HTML
// page: inline CSS, no scripts, no fonts, images or anything else from another host, so it works
// offline, under a strict Content-Security-Policy and without JavaScript (the collapsible parts
// are <details>). Every piece of text from the document is escaped before it is placed.
import crypto from 'node:crypto';
import { getOpenApiDocument } from './document.ts';
import type { JsonSchema, OpenApiDocument, OperationObject, ParameterObject, ResponseObject } from './types.ts';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** Bounds zod writes for "any integer"; noise to a reader. */
const UNBOUNDED = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);
/** Inline objects nested deeper than this are shown as "object" rather than expanded. */
const MAX_DEPTH = 3;
/** Longer regular expressions (uuid, date-time) say less than the format name next to them. */
const MAX_PATTERN_LENGTH = 60;

const CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1d2330;--muted:#5b6474;--line:#e3e6ec;--code:#f4f5f8;--link:#1f5fbf;
--get:#1a7f4b;--post:#1f5fbf;--patch:#8a5a00;--put:#6b3fa0;--delete:#b3261e}
@media (prefers-color-scheme:dark){:root{--bg:#14171c;--fg:#e6e8ec;--muted:#a0a8b5;--line:#2c313a;--code:#1e2229;--link:#7fb0ff;
--get:#4cc38a;--post:#7fb0ff;--patch:#e0b050;--put:#c49bff;--delete:#ff8a80}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--link)}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
code{background:var(--code);padding:.1em .3em;border-radius:4px}
pre{background:var(--code);padding:.8em 1em;border-radius:6px;overflow-x:auto}
pre code{background:none;padding:0}
.layout{display:grid;grid-template-columns:16em minmax(0,1fr);gap:2em;max-width:78em;margin:0 auto;padding:1.5em}
nav{position:sticky;top:1em;align-self:start;max-height:calc(100vh - 2em);overflow-y:auto;font-size:.9em}
nav ul{list-style:none;margin:0;padding-left:0}
nav ul ul{padding-left:1em}
nav li{margin:.2em 0}
header{border-bottom:1px solid var(--line);margin-bottom:1.5em}
h1{margin:.2em 0}
h2{margin-top:2.2em;padding-top:.6em;border-top:1px solid var(--line)}
h3{margin-top:1.8em}
h4{margin:1.2em 0 .4em;font-size:1em}
.muted{color:var(--muted)}
.op{border:1px solid var(--line);border-radius:8px;padding:0 1.2em 1em;margin:1.4em 0}
.op h3{display:flex;flex-wrap:wrap;gap:.6em;align-items:baseline}
.method{font:700 .8em/1 ui-monospace,monospace;text-transform:uppercase;padding:.35em .5em;border-radius:4px;color:var(--bg)}
.method.get{background:var(--get)}.method.post{background:var(--post)}.method.patch{background:var(--patch)}
.method.put{background:var(--put)}.method.delete{background:var(--delete)}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;margin:.4em 0 1em;font-size:.92em}
th,td{text-align:left;vertical-align:top;padding:.4em .6em;border-bottom:1px solid var(--line)}
th{font-weight:600}
td:last-child{min-width:14em}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em;margin:.6em 0}
dl.meta dt{font-weight:600}
dl.meta dd{margin:0}
details{margin:.4em 0}
summary{cursor:pointer;color:var(--link)}
@media (max-width:800px){.layout{grid-template-columns:1fr}nav{position:static;max-height:none}}
`.trim();

/**
 * A Content-Security-Policy that lets the page's one inline stylesheet through by its hash and
 * nothing else, for servers that want more than `style-src 'unsafe-inline'`.
 */
export const DOCS_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${crypto.createHash('sha256').update(CSS).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

/** Renders the whole reference. Pure; callers cache the string (see `getDocsPage`). */
export function renderDocsPage(doc: OpenApiDocument): string {
  const ctx: RenderContext = { components: doc.components.schemas };
  const operations = collectOperations(doc);
  const title = `${doc.info.title} ${doc.info.version}`;
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<title>${esc(title)} reference</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    '<div class="layout">',
    renderNav(doc, operations),
    '<main>',
    renderHeader(doc),
    renderOverview(doc),
    renderAuthentication(doc),
    renderErrors(doc, ctx),
    ...doc.tags.map((tag) =>
      renderTag(
        tag.name,
        tag.description,
        operations.filter((o) => o.op.tags.includes(tag.name)),
        ctx,
      ),
    ),
    renderSchemas(ctx),
    '</main>',
    '</div>',
    '</body>',
    '</html>',
  ].join('\n');
}

const pages = new Map<string, string>();

/** The page for `serverUrl`, rendered once from the memoized document. */
export function getDocsPage(serverUrl: string): string {
  let html = pages.get(serverUrl);
  if (html === undefined) {
    html = renderDocsPage(getOpenApiDocument(serverUrl));
    pages.set(serverUrl, html);
  }
  return html;
}

// ---------------------------------------------------------------------------------------------
// Page sections
// ---------------------------------------------------------------------------------------------

interface RenderContext {
  components: Record<string, JsonSchema>;
}

interface Located {
  method: (typeof METHODS)[number];
  path: string;
  op: OperationObject;
}

function collectOperations(doc: OpenApiDocument): Located[] {
  const found: Located[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op) found.push({ method, path, op });
    }
  }
  return found;
}

function renderNav(doc: OpenApiDocument, operations: Located[]): string {
  const tagItems = doc.tags.map((tag) => {
    const ops = operations.filter((o) => o.op.tags.includes(tag.name));
    const sub = ops.length
      ? `<ul>${ops.map((o) => `<li><a href="#${anchor('op', o.op.operationId)}">${esc(o.op.summary)}</a></li>`).join('')}</ul>`
      : '';
    return `<li><a href="#${anchor('tag', tag.name)}">${esc(tag.name)}</a>${sub}</li>`;
  });
  return [
    '<nav aria-label="Contents"><ul>',
    '<li><a href="#overview">Overview</a></li>',
    '<li><a href="#authentication">Authentication</a></li>',
    '<li><a href="#errors">Errors</a></li>',
    ...tagItems,
    '<li><a href="#schemas">Schemas</a></li>',
    '</ul></nav>',
  ].join('\n');
}

function renderHeader(doc: OpenApiDocument): string {
  const servers = doc.servers.map((s) => `<code>${esc(s.url)}</code>`).join(', ');
  return [
    '<header>',
    `<h1>${esc(doc.info.title)}</h1>`,
    `<p class="muted">Version ${esc(doc.info.version)} · OpenAPI ${esc(doc.openapi)} · Server ${servers}</p>`,
    '<p>Machine-readable specification: <a href="/openapi.json">/openapi.json</a> (also at <a href="/v1/openapi.json">/v1/openapi.json</a>).</p>',
    '</header>',
  ].join('\n');
}

function renderOverview(doc: OpenApiDocument): string {
  return `<section id="overview"><h2>Overview</h2>${prose(doc.info.description)}</section>`;
}

function renderAuthentication(doc: OpenApiDocument): string {
  const schemes = Object.entries(doc.components.securitySchemes);
  const schemeRows = schemes.map(([name, s]) =>
    row([
      `<code>${esc(name)}</code>`,
      s.type === 'http' ? `<code>Authorization: Bearer</code>` : `<code>${esc(s.name)}</code> (${esc(s.in)})`,
      inline(s.description),
    ]),
  );
  // Each scheme lists the scopes it can carry (`x-scopes`); together they are every scope.
  const scopes: Record<string, string> = {};
  for (const scheme of Object.values(doc.components.securitySchemes)) {
    const listed = asSchema(scheme['x-scopes']) ?? {};
    for (const [scope, text] of Object.entries(listed)) scopes[scope] ??= String(text);
  }
  const scopeRows = Object.entries(scopes).map(([scope, text]) => row([`<code>${esc(scope)}</code>`, inline(text)]));
  return [
    '<section id="authentication"><h2>Authentication</h2>',
    '<p>Every <code>/v1</code> operation that needs a key says which scope it requires. A publishable key works only where READ_PUBLIC is enough; everything else needs a secret key holding the scope (or ADMIN). A missing or unknown key is a 401, a key of another community or without the scope a 403.</p>',
    table(['Scheme', 'Header', 'Description'], schemeRows),
    scopeRows.length ? `<h3>Scopes</h3>${table(['Scope', 'Grants'], scopeRows)}` : '',
    '</section>',
  ].join('\n');
}

function renderErrors(doc: OpenApiDocument, ctx: RenderContext): string {
  const error = ctx.components.Error;
  const codes = (error?.['x-error-codes'] ?? {}) as Record<string, number>;
  const codeRows = Object.entries(codes)
    .sort(([a, sa], [b, sb]) => sa - sb || a.localeCompare(b))
    .map(([code, status]) => row([`<code>${esc(code)}</code>`, esc(String(status))]));
  return [
    '<section id="errors"><h2>Errors</h2>',
    '<p>Every error answers with the same envelope. <code>error</code> is for people and may change; match on <code>code</code>. Quote <code>requestId</code> (also the <code>X-Request-Id</code> header) when reporting a problem.</p>',
    error ? fieldTable(error, ctx) : '',
    '<p>Retrying: 400, 401, 403, 404, 409 and 422 will fail the same way again. Retry a 429 after <code>Retry-After</code> seconds, and 500, 502, 503, 504 and network errors with backoff (1 s, 2 s, 4 s, 8 s, 16 s), sending the same <code>Idempotency-Key</code> on writes.</p>',
    codeRows.length ? `<h3>Codes</h3>${table(['Code', 'HTTP status'], codeRows)}` : '',
    '</section>',
  ].join('\n');
}

function renderTag(name: string, description: string, operations: Located[], ctx: RenderContext): string {
  const body = operations.length
    ? operations.map((o) => renderOperation(o, ctx)).join('\n')
    : '<p class="muted">No operations are published under this tag yet.</p>';
  return `<section id="${anchor('tag', name)}"><h2>${esc(name)}</h2>${inline(description)}\n${body}</section>`;
}

function renderOperation({ method, path, op }: Located, ctx: RenderContext): string {
  const success = Object.entries(op.responses).find(([status]) => status.startsWith('2'));
  const errors = Object.entries(op.responses).filter(([status]) => !status.startsWith('2'));
  return [
    `<section class="op" id="${anchor('op', op.operationId)}">`,
    `<h3><span class="method ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>`,
    `<p><strong>${esc(op.summary)}</strong></p>`,
    op.description ? prose(op.description) : '',
    '<dl class="meta">',
    `<dt>Operation</dt><dd><code>${esc(op.operationId)}</code></dd>`,
    `<dt>Auth</dt><dd>${authText(op)}</dd>`,
    '</dl>',
    renderParameters(op.parameters, ctx),
    op.requestBody ? renderRequestBody(op, ctx) : '',
    success ? renderSuccess(success[0], success[1], ctx) : '',
    renderErrorResponses(errors),
    '</section>',
  ].join('\n');
}

function authText(op: OperationObject): string {
  if (op.security.length === 0) return 'None';
  if (op['x-widget-action']) {
    return 'Widget action: publishable key with a listed embed <code>Origin</code>, or same-origin on the hosted site (sign-in cookie optional)';
  }
  const keys0 = op.security.flatMap((s) => Object.keys(s));
  if (keys0.includes('signInCookie')) return 'Signed in: sign-in cookie or <code>Authorization: Bearer</code>';
  const scope = op['x-required-scope'];
  const who = keys0.includes('publishableKey') ? 'publishable or secret key' : 'secret key (or ADMIN)';
  return `<code>X-API-Key</code>, scope <code>${esc(String(scope ?? ''))}</code>: ${esc(who)}`;
}

function renderParameters(parameters: ParameterObject[], ctx: RenderContext): string {
  if (parameters.length === 0) return '';
  const rows = parameters.map((p) =>
    row([
      `<code>${esc(p.name)}</code>`,
      esc(p.in),
      typeHtml(p.schema, ctx),
      p.required ? 'yes' : 'no',
      notes(p.description, p.schema),
    ]),
  );
  return `<h4>Parameters</h4>${table(['Name', 'In', 'Type', 'Required', 'Notes'], rows)}`;
}

function renderRequestBody(op: OperationObject, ctx: RenderContext): string {
  const body = op.requestBody!;
  const [mediaType, media] = Object.entries(body.content)[0];
  return [
    `<h4>Request body <span class="muted">(${esc(mediaType)}, ${body.required ? 'required' : 'optional'})</span></h4>`,
    body.description ? inline(body.description) : '',
    schemaBlock(media.schema, ctx),
  ].join('\n');
}

function renderSuccess(status: string, response: ResponseObject, ctx: RenderContext): string {
  const media = response.content && Object.values(response.content)[0];
  return [
    `<h4>Response ${esc(status)}</h4>`,
    `<p>${inline(response.description)}</p>`,
    media ? schemaBlock(media.schema, ctx) : '<p class="muted">No body.</p>',
    renderHeaders(response.headers),
  ].join('\n');
}

function renderHeaders(headers: ResponseObject['headers']): string {
  const names = Object.keys(headers ?? {});
  if (names.length === 0) return '';
  return `<p class="muted">Headers: ${names.map((n) => `<code>${esc(n)}</code>`).join(', ')}</p>`;
}

function renderErrorResponses(errors: [string, ResponseObject][]): string {
  if (errors.length === 0) return '';
  const rows = errors.map(([status, r]) => row([esc(status), inline(r.description)]));
  const example = errors.map(([, r]) => firstExample(r)).find((e) => e !== undefined);
  return [
    `<h4>Errors</h4>${table(['Status', 'Meaning'], rows)}`,
    example
      ? `<details><summary>Example error</summary><pre><code>${esc(JSON.stringify(example, null, 2))}</code></pre></details>`
      : '',
  ].join('\n');
}

function firstExample(response: ResponseObject): unknown {
  const media = response.content && Object.values(response.content)[0];
  return media?.examples ? Object.values(media.examples)[0]?.value : undefined;
}

function renderSchemas(ctx: RenderContext): string {
  const blocks = Object.entries(ctx.components).map(([name, schema]) =>
    [
      `<section id="${anchor('schema', name)}"><h3>${esc(name)}</h3>`,
      typeof schema.description === 'string' ? inline(schema.description) : '',
      fieldTable(schema, ctx),
      '</section>',
    ].join('\n'),
  );
  return `<section id="schemas"><h2>Schemas</h2>${blocks.join('\n')}</section>`;
}

// ---------------------------------------------------------------------------------------------
// Schemas as text
// ---------------------------------------------------------------------------------------------

/**
 * A body or response: its type line, then its fields: expanded for an inline object, behind a
 * <details> for a named component (whose full entry is under Schemas).
 */
function schemaBlock(schema: JsonSchema, ctx: RenderContext): string {
  const named = refName(schema) ?? (schema.type === 'array' ? refName(asSchema(schema.items)) : undefined);
  if (named && ctx.components[named]) {
    return [
      `<p>Body: ${typeHtml(schema, ctx)}</p>`,
      `<details><summary>Fields of ${esc(named)}</summary>${fieldTable(ctx.components[named], ctx)}</details>`,
    ].join('\n');
  }
  if (isObjectWithProperties(schema)) return fieldTable(schema, ctx);
  return `<p>Body: ${typeHtml(schema, ctx)}</p>`;
}

interface FieldRow {
  name: string;
  schema: JsonSchema;
  required: boolean;
}

function fieldTable(schema: JsonSchema, ctx: RenderContext): string {
  if (!isObjectWithProperties(schema)) return `<p>${typeHtml(schema, ctx)}</p>`;
  const rows = fieldRows(schema, '', 0).map((f) =>
    row([
      `<code>${esc(f.name)}</code>`,
      typeHtml(f.schema, ctx),
      f.required ? 'yes' : 'no',
      notes(typeof f.schema.description === 'string' ? f.schema.description : undefined, f.schema),
    ]),
  );
  return table(['Field', 'Type', 'Required', 'Notes'], rows);
}

/** Properties of an object, with inline sub-objects flattened as `parent.child` rows. */
function fieldRows(schema: JsonSchema, prefix: string, depth: number): FieldRow[] {
  const properties = schema.properties as Record<string, JsonSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const rows: FieldRow[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const fullName = prefix + name;
    rows.push({ name: fullName, schema: property, required: required.has(name) });
    const nested = inlineObjectOf(property);
    if (nested && depth < MAX_DEPTH) {
      rows.push(...fieldRows(nested.schema, `${fullName}${nested.many ? '[]' : ''}.`, depth + 1));
    }
  }
  return rows;
}

/** The inline object inside a property (itself, its array items, or its non-null branch). */
function inlineObjectOf(schema: JsonSchema): { schema: JsonSchema; many: boolean } | undefined {
  if (isObjectWithProperties(schema)) return { schema, many: false };
  if (schema.type === 'array') {
    const items = asSchema(schema.items);
    return items && isObjectWithProperties(items) ? { schema: items, many: true } : undefined;
  }
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  const objects = branches?.filter(isObjectWithProperties) ?? [];
  return objects.length === 1 ? { schema: objects[0], many: false } : undefined;
}

/** A short, linked type: `string (uuid)`, `array of Tier`, `Location or null`, `one of "a", "b"`. */
function typeHtml(schema: JsonSchema | undefined, ctx: RenderContext): string {
  if (!schema || Object.keys(schema).filter((k) => k !== 'description').length === 0) return 'any';
  const ref = refName(schema);
  if (ref) return ctx.components[ref] ? `<a href="#${anchor('schema', ref)}">${esc(ref)}</a>` : esc(ref);
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (branches) return branches.map((b) => typeHtml(b, ctx)).join(' or ');
  if ('const' in schema) return `<code>${esc(JSON.stringify(schema.const))}</code>`;
  if (Array.isArray(schema.enum))
    return `one of ${schema.enum.map((v) => `<code>${esc(JSON.stringify(v))}</code>`).join(', ')}`;
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  return types.map((t) => singleTypeHtml(t, schema, ctx)).join(' or ');
}

function singleTypeHtml(type: string | undefined, schema: JsonSchema, ctx: RenderContext): string {
  switch (type) {
    case 'array':
      return `array of ${typeHtml(asSchema(schema.items), ctx)}`;
    case 'object': {
      const extra = asSchema(schema.additionalProperties);
      return extra && !isObjectWithProperties(schema) ? `map of string to ${typeHtml(extra, ctx)}` : 'object';
    }
    case 'string':
      return typeof schema.format === 'string' ? `string (${esc(schema.format)})` : 'string';
    case undefined:
      return 'any';
    default:
      return esc(type);
  }
}

/** Description plus the constraints a client must meet. */
function notes(description: string | undefined, schema: JsonSchema): string {
  const parts = constraints(schema).map((c) => esc(c));
  return [description ? inline(description) : '', parts.length ? `<span class="muted">${parts.join(', ')}</span>` : '']
    .filter(Boolean)
    .join('<br>');
}

function constraints(schema: JsonSchema): string[] {
  const out: string[] = [];
  const num = (key: string) =>
    typeof schema[key] === 'number' && !UNBOUNDED.has(schema[key] as number) ? (schema[key] as number) : undefined;
  const bounds: [string, string][] = [
    ['minLength', 'min length'],
    ['maxLength', 'max length'],
    ['minimum', 'min'],
    ['maximum', 'max'],
    ['exclusiveMinimum', 'greater than'],
    ['exclusiveMaximum', 'less than'],
    ['minItems', 'min items'],
    ['maxItems', 'max items'],
  ];
  for (const [key, label] of bounds) {
    const value = num(key);
    if (value !== undefined) out.push(`${label} ${value}`);
  }
  if (typeof schema.pattern === 'string' && schema.pattern.length <= MAX_PATTERN_LENGTH && !schema.format) {
    out.push(`pattern ${schema.pattern}`);
  }
  if ('default' in schema) out.push(`default ${JSON.stringify(schema.default)}`);
  return out;
}

function refName(schema: JsonSchema | undefined): string | undefined {
  const ref = schema?.$ref;
  const prefix = '#/components/schemas/';
  return typeof ref === 'string' && ref.startsWith(prefix) ? ref.slice(prefix.length) : undefined;
}

function isObjectWithProperties(schema: JsonSchema): boolean {
  return (
    schema.type === 'object' &&
    typeof schema.properties === 'object' &&
    schema.properties !== null &&
    Object.keys(schema.properties).length > 0
  );
}

function asSchema(value: unknown): JsonSchema | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonSchema) : undefined;
}

// ---------------------------------------------------------------------------------------------
// HTML helpers
// ---------------------------------------------------------------------------------------------

function esc(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Escaped text with the two bits of markdown the descriptions use: `code` and **bold**. */
function inline(text: string): string {
  return esc(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
}

/** Paragraphs and `- ` bullet lists, everything else inline. */
function prose(text: string): string {
  const blocks: string[] = [];
  let list: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length) blocks.push(`<p>${inline(paragraph.join(' '))}</p>`);
    if (list.length) blocks.push(`<ul>${list.map((item) => `<li>${inline(item)}</li>`).join('')}</ul>`);
    paragraph = [];
    list = [];
  };
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '') flush();
    else if (trimmed.startsWith('- ')) {
      if (paragraph.length) flush();
      list.push(trimmed.slice(2));
    } else {
      if (list.length) flush();
      paragraph.push(trimmed);
    }
  }
  flush();
  return blocks.join('\n');
}

function table(headings: string[], rows: string[]): string {
  return [
    '<div class="table-wrap"><table>',
    `<thead><tr>${headings.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead>`,
    `<tbody>${rows.join('')}</tbody>`,
    '</table></div>',
  ].join('');
}

/** Cells are HTML already escaped by the caller. */
function row(cells: string[]): string {
  return `<tr>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
}

/** A fragment id from free text: only characters that need no escaping in an attribute or URL. */
function anchor(kind: string, name: string): string {
  return `${kind}-${name.replace(/[^A-Za-z0-9_-]+/g, '-')}`;
}
