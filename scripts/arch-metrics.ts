// Architecture metrics for the server tree, printed as JSON: imports that cross the layering
// rules (runtime and type-only counted apart), import cycles between folders, the longest
// functions, and non-null assertions on the handler context (`key!`, `visitor!`). Used to
// measure refactors before and after; `tests/unit/architecture.test.ts` enforces the rules.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => path.join(dir, f));
}

/** The folder that names a file's layer: `server/v1`, `server/domain`, `contract`, ... */
export function layerOf(file: string): string {
  const parts = file.split(path.sep);
  // Top-level server files stand alone: app.ts and main.ts compose everything, config.ts is read by all.
  if (parts[0] === 'server') return parts.length > 2 ? `server/${parts[1]}` : file;
  return parts[0];
}

// Layers that hold business rules or infrastructure must not reach up into the HTTP surfaces, nor
// into use-cases/ (the orchestration /v1 and the widget actions share, between them and domain/).
const SURFACES = [
  'server/http',
  'server/v1',
  'server/site',
  'server/cli',
  'server/openapi',
  'server/actions',
  'server/use-cases',
];
/** The route layers: each calls use-cases/ and domain/, never another route layer. */
const ROUTE_LAYERS = ['server/v1', 'server/site', 'server/actions'];
const CORE = [
  'server/domain',
  'server/db',
  'server/mail',
  'server/payments',
  'server/webhooks',
  'server/sms',
  'server/oauth',
  'server/maintenance',
];

export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
  dynamic: boolean;
}

export function importsOf(file: string): ImportEdge[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edges: ImportEdge[] = [];
  const add = (spec: string, typeOnly: boolean, dynamic: boolean) => {
    if (!spec.startsWith('.')) return;
    const to = path.relative(ROOT, path.resolve(ROOT, path.dirname(file), spec));
    edges.push({ from: file, to, typeOnly, dynamic });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name &&
            !!clause.namedBindings &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier.text, typeOnly, false);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly, false);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return edges;
}

/** Why an import breaks the house rules, or null when it is fine. */
export function violation(edge: ImportEdge): string | null {
  const from = layerOf(edge.from);
  const to = layerOf(edge.to);
  if (from === to) return null;
  if (from === 'contract' && to !== 'contract') return 'contract imports nothing of ours';
  if (CORE.includes(from) && SURFACES.includes(to)) return `${from} reaches up into ${to}`;
  if (ROUTE_LAYERS.includes(from) && ROUTE_LAYERS.includes(to)) return `${from.slice(7)} imports ${to.slice(7)}`;
  if (from === 'server/use-cases' && ROUTE_LAYERS.includes(to)) return `use-cases imports ${to}`;
  if (from === 'server/http' && (ROUTE_LAYERS.includes(to) || to === 'server/use-cases')) return `http imports ${to}`;
  return null;
}

export function folderCycles(edges: ImportEdge[]): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const e of edges) {
    if (e.typeOnly) continue;
    const a = layerOf(e.from);
    const b = layerOf(e.to);
    if (a === b) continue;
    if (!graph.has(a)) graph.set(a, new Set());
    graph.get(a)!.add(b);
  }
  const cycles: string[][] = [];
  for (const [a, outs] of graph)
    for (const b of outs) {
      if (a < b && graph.get(b)?.has(a)) cycles.push([a, b]);
    }
  return cycles;
}

function longestFunctions(files: string[], top: number) {
  const found: { name: string; file: string; lines: number }[] = [];
  for (const file of files) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.body && node.name) {
        const start = sf.getLineAndCharacterOfPosition(node.getStart()).line;
        const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
        found.push({ name: node.name.getText(), file, lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return found.sort((a, b) => b.lines - a.lines).slice(0, top);
}

function main() {
  const files = [...sources('server'), ...sources('contract')];
  const edges = files.flatMap(importsOf);
  const bad = edges.map((e) => ({ ...e, why: violation(e) })).filter((e) => e.why);
  const assertions = files.reduce(
    (n, f) => n + (fs.readFileSync(path.join(ROOT, f), 'utf8').match(/\b(key|visitor)!/g)?.length ?? 0),
    0,
  );
  const sqlOutsideData = files.filter(
    (f) =>
      /^server[\\/](v1|site|actions|admin)[\\/]/.test(f) &&
      /\.(selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql`/.test(fs.readFileSync(path.join(ROOT, f), 'utf8')),
  );
  console.log(
    JSON.stringify(
      {
        crossLayerImports: {
          runtime: bad.filter((e) => !e.typeOnly).length,
          typeOnly: bad.filter((e) => e.typeOnly).length,
          list: bad.map(
            (e) => `${e.from} -> ${e.to}${e.typeOnly ? ' (type)' : ''}${e.dynamic ? ' (dynamic)' : ''}: ${e.why}`,
          ),
        },
        folderCycles: folderCycles(edges).map((c) => c.join(' <-> ')),
        filesWithSqlInSurfaces: sqlOutsideData,
        handlerNonNullAssertions: assertions,
        longestFunctions: longestFunctions(files, 10).map((f) => `${f.lines} ${f.name} (${f.file})`),
      },
      null,
      2,
    ),
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) main();
