// Lint rules that keep the layers honest (docs/architecture-layers.md says
// why each holds). Every folder of src/ is a layer; a layer imports only the
// layers below it, so the core, the protocol, the surfaces, the CLI and the
// language server run (and are tested) in plain Node, and only src/vscode/
// talks to the editor.
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

const root = import.meta.dirname;
const src = (folder) => `./src/${folder}`;

/**
 * Who may not import whom: `target` files may not import from `from`. Each
 * zone states one direction of the layering; the message says what to do
 * instead, since the person who meets it is adding an import.
 */
const zones = [
  // The wire shapes every side shares (the webview bundle too): they depend on nothing of ours.
  {
    target: src('protocol'),
    from: [src('core'), src('surfaces'), src('vscode'), src('cli'), src('server'), src('host')],
    message: 'src/protocol is the bottom layer (the webview bundles it); move what it needs into src/protocol.',
  },
  // The core runs without an editor, a terminal or a language client.
  {
    target: src('core'),
    from: [src('surfaces'), src('vscode'), src('cli'), src('server'), src('host')],
    message: 'src/core must not depend on a host or a surface; pass what it needs in through an interface.',
  },
  // The core's own base files (src/core/*.ts) are shared helpers under every core folder.
  {
    target: './src/core/*.ts',
    from: [src('core/agents'), src('core/tools'), src('core/isolation'), src('core/engine'), src('core/hooks'), src('core/runs'), src('core/runtime'), src('core/host'), src('core/mcp'), src('core/trust'), src('core/trustProbes')],
    message: 'The files at the top of src/core are helpers every core folder may use; they import none of those folders.',
  },
  // Inside the core, bottom to top: agents; tools; isolation (beside them); the
  // engine; then hooks and runs, which implement the engine's ports
  // (LifecycleHooks, AgentArchive) and which the engine never imports.
  {
    target: src('core/agents'),
    from: [src('core/tools'), src('core/isolation'), src('core/engine'), src('core/hooks'), src('core/runs'), src('core/mcp'), src('core/trust'), src('core/trustProbes')],
    message: 'core/agents (what an agent file means, its mcpServers field included) sits below tools, MCP, isolation, the engine, hooks and runs.',
  },
  {
    target: src('core/tools'),
    from: [src('core/isolation'), src('core/engine'), src('core/hooks'), src('core/runs'), src('core/mcp'), src('core/trustProbes')],
    message: 'core/tools sits below the engine, hooks and runs: the engine composes tools, not the other way.',
  },
  {
    target: src('core/isolation'),
    from: [src('core/agents'), src('core/tools'), src('core/engine'), src('core/hooks'), src('core/runs')],
    message: 'core/isolation (worktrees) knows git and the file system only; the engine drives it.',
  },
  {
    target: src('core/engine'),
    from: [src('core/hooks'), src('core/runs')],
    message: 'The engine defines ports (LifecycleHooks, AgentArchive) that hooks and runs implement; it never imports them.',
  },
  {
    target: src('core/hooks'),
    from: [src('core/runs'), src('core/isolation')],
    message: 'core/hooks implements the engine\'s LifecycleHooks and depends on nothing beside it.',
  },
  // MCP servers at run time (launch, connection, the tools they offer): above
  // agents and tools, below the engine, which asks it for a tree's servers.
  {
    target: src('core/mcp'),
    from: [src('core/engine'), src('core/hooks'), src('core/runs'), src('core/isolation'), src('core/trustProbes')],
    message: 'core/mcp starts servers and offers their tools; the engine uses it, it never imports the engine, hooks, runs or isolation.',
  },
  // Project trust is two folders: the port the engine asks (core/trust, which
  // depends on nothing of ours), and the probes of what a folder's files would
  // run (core/trustProbes: hooks, MCP servers), which only the hosts ask.
  {
    target: src('core/trust'),
    from: [src('core/agents'), src('core/tools'), src('core/isolation'), src('core/engine'), src('core/hooks'), src('core/runs'), src('core/mcp'), src('core/trustProbes')],
    message: 'core/trust is the port: a folder is trusted or not. What a folder would run belongs in core/trustProbes.',
  },
  {
    target: [src('core/agents'), src('core/tools'), src('core/isolation'), src('core/engine'), src('core/hooks'), src('core/runs'), src('core/mcp')],
    from: [src('core/trustProbes')],
    message: 'core/trustProbes reads what a folder would run, for the hosts to ask about; the engine and what it uses never import it.',
  },
  {
    target: src('core/runs'),
    from: [src('core/hooks'), src('core/isolation')],
    message: 'core/runs keeps run records and depends on the engine and the protocol only; shared helpers go to the top of src/core.',
  },
  // The composition root builds the runtime from every core folder; none of them knows it exists.
  {
    target: [src('core/agents'), src('core/tools'), src('core/isolation'), src('core/engine'), src('core/hooks'), src('core/runs'), src('core/trust'), src('core/mcp'), src('core/trustProbes')],
    from: [src('core/runtime')],
    message: 'core/runtime is the composition root: it wires the other core folders, which never import it (take what you need as an option).',
  },
  // The connection to the agent host (its protocol's peer, client, server, lifetime) sits on top of the runtime it serves.
  {
    target: [src('core/agents'), src('core/tools'), src('core/isolation'), src('core/engine'), src('core/hooks'), src('core/runs'), src('core/trust'), src('core/mcp'), src('core/trustProbes'), src('core/runtime')],
    from: [src('core/host')],
    message: 'core/host serves and reaches the runtime over a socket; the runtime and what it wires never import it.',
  },
  // Editor-free presentation: what the sidebar, the chat and the LM provider show.
  {
    target: src('surfaces'),
    from: [src('vscode'), src('cli'), src('server')],
    message: 'src/surfaces is editor-free presentation logic; the vscode glue that uses it lives in src/vscode.',
  },
  // The four hosts never import each other.
  { target: src('cli'), from: [src('vscode'), src('server'), src('host')], message: 'The CLI runs without VS Code and the language server; it starts the agent host as a process.' },
  { target: src('server'), from: [src('vscode'), src('cli'), src('surfaces'), src('host')], message: 'The language server runs in its own process, without VS Code.' },
  { target: src('vscode'), from: [src('cli'), src('server'), src('host')], message: 'The extension starts the language server and the agent host as processes; it does not import them or the CLI.' },
  { target: src('host'), from: [src('vscode'), src('cli'), src('server'), src('surfaces')], message: 'The agent host is a process of its own: it runs the core, and clients reach it over its socket.' },
  {
    target: './webview-ui',
    from: [src('core'), src('surfaces'), src('vscode'), src('cli'), src('server')],
    message: 'The webview runs in a browser sandbox and shares only src/protocol with the extension.',
  },
];

const noVscode = {
  'no-restricted-imports': [
    'error',
    { paths: [{ name: 'vscode', message: 'Only src/vscode/ may import vscode; keep this layer editor-free.' }] },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'dist-test/**', 'node_modules/**', 'test/e2e/artifacts/**', 'test/fixtures/**', '.cache/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    files: ['src/**/*.ts', 'webview-ui/src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json'] })],
      // no-cycle follows imports into other files; it parses them as TypeScript.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: root, zones }],
      // A cycle means a type or a helper sits in the wrong file: move it.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  { files: ['src/core/**', 'src/protocol/**', 'src/surfaces/**', 'src/cli/**', 'src/server/**', 'src/host/**', 'webview-ui/**'], rules: noVscode },
  {
    files: ['src/**/*.ts', 'webview-ui/src/**/*.ts'],
    rules: {
      // Ids come from outside (a terminal, a file name, a webview message): `run.agents['__proto__']` is not an agent.
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[computed=true][object.type='MemberExpression'][object.property.name='agents']:not(AssignmentExpression > MemberExpression.left)",
          message: 'Look an agent up with agentOf(run, id) (src/protocol/runSnapshot.ts): an outside id such as "constructor" is no own property of run.agents.',
        },
      ],
    },
  },
  // A promise nobody awaits loses its rejection: an unhandled rejection in
  // the extension host, a CLI that exits before its write lands. `void` says
  // "on purpose". Type-aware, so it reads each file's own tsconfig.
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: root } },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's test() and describe() return promises the runner itself awaits.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }] },
      ],
    },
  },
);

