/**
 * The layer rules, checked by `npm test` (`npm run check:layers`). Imports point one way:
 *
 *   src/entry (the process entry points: the only code that wires rest/ and workers/ together)
 *     -> rest/ (the REST adapter)  and  workers/ (Bull processors: thin, they call module services)
 *       -> src/<module>/ (one folder per resource: graphql.ts + service.ts) and src/graphql-schema.ts (assembles them)
 *         -> src/core/ (builder, context, errors, identity, pub/sub, config, database, plugins)
 *           -> src/generated/ (Prisma client, codegen output)
 *
 *   workers/engine/ is a leaf (speech: audio, VAD, Whisper, decoding, streaming): it imports nothing from src/,
 *   rest/ or the rest of workers/; anything may use it as it would an npm package.
 *   src/sdk/ (the client SDK) is a leaf too: it imports only the generated OpenAPI types (src/generated/openapi*).
 * Type-only imports count: a cycle through types is still a cycle a newcomer has to untangle.
 * Between modules, MODULE_GRAPH below declares which may import which, and a module is reached only through its
 * face (index.ts, service.ts, graphql.ts and *-graphql.ts at its top: module-faces).
 */
const MODULES = '^src/(?!core/|entry/|generated/|graphql-schema\\.ts$)[^/]+/';

/**
 * The module graph: which module of src/ may import which (besides src/core and src/generated, open to all), through
 * types too (a loop through types is still a loop). It must stay a DAG (checked as this file loads), and every import
 * between modules must be an edge of it. src/transcript is the kernel under the resource modules: the durable log,
 * segments and sentences, confidence, script alignment, live audio and media paths.
 */
const MODULE_GRAPH = {
  account: [], auth: [], links: [], meta: [], 'share-links': [], transcript: [],
  connect: ['account'],
  billing: ['transcript'], translation: ['transcript'],
  jobs: ['billing', 'transcript'],
  recordings: ['share-links', 'transcript', 'translation'],
  mcp: ['recordings'], voices: ['recordings', 'transcript'],
  summaries: ['recordings', 'transcript', 'translation'],
  corrections: ['recordings', 'summaries', 'transcript'],
  transcriptions: ['billing', 'jobs', 'links', 'meta', 'recordings', 'share-links', 'transcript'],
  live: ['billing', 'links', 'meta', 'recordings', 'transcript', 'transcriptions', 'translation'],
  broadcasts: ['links', 'live', 'recordings', 'transcript', 'transcriptions'],
  listeners: ['broadcasts', 'recordings', 'share-links', 'transcript'],
  search: ['listeners', 'recordings', 'transcript', 'translation'],
};
(function mustBeADag() {
  const state = {};
  const visit = (module, path) => {
    if (state[module] === 'done') return;
    if (state[module] === 'open') throw new Error(`.dependency-cruiser.cjs: MODULE_GRAPH has a cycle: ${[...path, module].join(' -> ')}`);
    state[module] = 'open';
    for (const next of MODULE_GRAPH[module] ?? []) visit(next, [...path, module]);
    state[module] = 'done';
  };
  for (const module of Object.keys(MODULE_GRAPH)) visit(module, []);
})();
const OUTSIDE_THE_GRAPH = ['core', 'entry', 'generated', 'sdk', 'cli'];
const moduleGraphRules = [
  ...Object.entries(MODULE_GRAPH).map(([module, allowed]) => ({
    name: `module-graph-${module}`, severity: 'error',
    comment: `src/${module} may import ${allowed.length ? allowed.map((name) => `src/${name}`).join(', ') : 'no other module'} (and `
      + `src/core): MODULE_GRAPH.`,
    from: { path: `^src/${module}/` },
    to: { path: `^src/(?!(?:${[...OUTSIDE_THE_GRAPH, module, ...allowed].join('|')})/)[^/]+/` },
  })),
  {
    name: 'module-graph-lists-every-module', severity: 'error',
    comment: 'A module (a folder of src/) that imports another is declared in MODULE_GRAPH.',
    from: { path: `^src/(?!(?:${[...OUTSIDE_THE_GRAPH, ...Object.keys(MODULE_GRAPH)].join('|')})/)([^/]+)/` },
    to: { path: `^src/(?!(?:core|generated)/)[^/]+/`, pathNot: '^src/$1/' },
  },
];

module.exports = {
  forbidden: [
    ...moduleGraphRules,
    {
      name: 'module-faces', severity: 'error',
      comment: 'Another module is reached only through its face: index.ts, service.ts or graphql.ts (and its *-graphql.ts parts) at its '
        + 'top (index.ts re-exports what others use of its other files), so what a module keeps to itself can change without touching '
        + 'its users.',
      from: { path: '^src/([^/]+)/' }, to: {
        path: `^src/(?!(?:${[
          'core', 'generated', 'sdk', 'cli', 'entry',
        ].join('|')})/)[^/]+/(?!(?:index|service|graphql|[a-z-]*-graphql)\\.ts$)`,
        pathNot: '^src/$1/',
      },
    },
    {
      name: 'module-faces-from-adapters', severity: 'error',
      comment: 'rest/, the processors and the assembled schema reach a module only through its face (index.ts, service.ts, graphql.ts and '
        + '*-graphql.ts), as modules do.',
      from: { path: '^(rest/|workers/(?!engine/)|src/graphql-schema\\.ts$)' }, to: { path: `^src/(?!(?:${[
        'core', 'generated', 'sdk', 'cli', 'entry',
      ].join('|')})/)[^/]+/(?!(?:index|service|graphql|[a-z-]*-graphql)\\.ts$)` },
    },
    {
      name: 'no-cycles', severity: 'error', comment: 'No import cycles, through types either.', from: { path: '^(src|rest|workers)/' },
      to: { circular: true },
    },
    {
      name: 'engine-is-a-leaf', severity: 'error',
      comment: 'The speech engine imports nothing from the gateway; its errors are its own (mapped to the envelope at the edge).',
      from: { path: '^workers/engine/' }, to: { path: '^(src|rest)/|^workers/(?!engine/)' },
    },
    {
      name: 'engine-face', severity: 'error',
      comment: 'The gateway (src/, rest/, the processors) reaches the engine only through its face, workers/engine/index.ts; its '
        + 'sub-folders (whisper/, graph/, speakers/, tts/, threads/, tools/) are its own.',
      from: { path: '^(src|rest)/|^workers/(?!engine/)' }, to: { path: '^workers/engine/(?!index\\.ts$)' },
    },
    {
      name: 'sdk-is-a-leaf', severity: 'error',
      comment: 'The SDK (src/sdk, shipped as `speechgate/sdk` to Node and browsers) imports nothing from the server; only what is '
        + 'generated for clients: the OpenAPI types and the GraphQL operations as typed strings.',
      from: { path: '^src/sdk/' }, to: { path: '^(rest|workers)/|^src/(?!sdk/|generated/openapi|generated/graphql-documents)' },
    },
    {
      name: 'cli-uses-the-sdk', severity: 'error',
      comment: 'The command line (src/cli, the `speechgate` bin) is a client of the server like any other: of the project it imports only '
        + 'the SDK (src/sdk), besides npm packages and Node\'s own modules (not the server, not even the generated types but through '
        + 'the SDK).',
      from: { path: '^src/cli/' }, to: { path: '^(rest|workers|prisma|schema|test)/|^src/(?!cli/|sdk/)' },
    },
    {
      name: 'core-below-modules', severity: 'error',
      comment: 'src/core is below every module: it never imports a module, the schema, rest/, the processors or the entry points.',
      from: { path: '^src/core/' }, to: { path: `${MODULES}|^src/(entry/|graphql-schema\\.ts$)|^rest/|^workers/(?!engine/)` },
    },
    {
      name: 'modules-do-not-wire', severity: 'error',
      comment: 'Modules never import rest/, the processors in workers/, the entry points or the assembled schema; the queue is injected.',
      from: { path: MODULES }, to: { path: '^rest/|^workers/(?!engine/)|^src/(entry/|graphql-schema\\.ts$)' },
    },
    {
      name: 'rest-is-an-adapter', severity: 'error',
      comment: 'rest/ calls modules and core; it never imports processors or the entry points.',
      from: { path: '^rest/' }, to: { path: '^workers/(?!engine/)|^src/entry/' },
    },
    {
      name: 'workers-are-processors', severity: 'error',
      comment: 'Processors call module services; they never import rest/ or the entry points.',
      from: { path: '^workers/' }, to: { path: '^rest/|^src/entry/' },
    },
    {
      name: 'only-entry-wires', severity: 'error',
      comment: 'Nothing imports the entry points.',
      from: { path: '^(src|rest|workers)/', pathNot: '^src/entry/' }, to: { path: '^src/entry/' },
    },
    // The module order so far (issue 30: the declared graph of every module is the goal): what was untied stays so.
    {
      name: 'live-below-its-audience', severity: 'error',
      comment: 'The live module (src/live: sessions, live recordings and their transports) does not know listeners, broadcasts, jobs or '
        + 'corrections: they build on it, not the other way.',
      from: { path: '^src/live/' }, to: { path: '^src/(listeners|broadcasts|jobs|corrections)/' },
    },
    {
      name: 'live-transports-are-adapters', severity: 'error',
      comment: 'The transport-free live session and live recordings never import a transport (src/live/transports: the realtime socket, '
        + 'the publisher, the stream pull, RTMP); only the runtime that wires the socket and the face do.',
      from: { path: '^src/live/(?!transports/|runtime\\.ts$|index\\.ts$)' }, to: { path: '^src/live/transports/' },
    },
    {
      name: 'billing-below-the-resources', severity: 'error',
      comment: 'Billing meters work; of the rest it reads only the transcript kernel (src/transcript: a metered stop is a log step, and '
        + 'captured media lengths).',
      from: { path: '^src/billing/' }, to: { path: '^src/(?!core/|generated/|billing/|transcript/)[^/]+/' },
    },
    {
      name: 'recordings-below-their-users', severity: 'error',
      comment: 'Transcriptions, corrections and broadcasts build on recordings; what they share (word folding, a transcription\'s '
        + 'broadcast ids, its row lock, links) lives in src/core or src/links.',
      from: { path: '^src/recordings/' }, to: { path: '^src/(transcriptions|corrections|broadcasts)/' },
    },
    {
      name: 'links-fetch-only', severity: 'error',
      comment: 'Fetching and probing links (src/links) serves transcriptions, recordings and broadcasts; it imports only src/core.',
      from: { path: '^src/links/' }, to: { path: '^src/(?!core/|links/)[^/]+/' },
    },
    {
      name: 'runs-on-a-production-install', severity: 'error',
      comment: 'What the server, the worker, the admin and engine commands load is in `dependencies`: a production install '
        + '(`npm ci --omit=dev`) has no devDependencies. Types only are fine (they are gone at run time).',
      from: { path: '^(src|rest|workers)/' }, to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.json'] },
  },
};
