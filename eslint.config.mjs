// Lint rules that keep the layers honest: the core, the protocol, the CLI and
// the language server never import `vscode`, so they run (and are tested) in
// plain Node. Only src/vscode/ talks to the editor.
import tseslint from 'typescript-eslint';

const noVscode = {
  'no-restricted-imports': [
    'error',
    {
      paths: [{ name: 'vscode', message: 'Only src/vscode/ may import vscode; keep this layer editor-free.' }],
      patterns: [{ group: ['**/vscode/**', '../vscode/*'], message: 'Lower layers must not depend on src/vscode/.' }],
    },
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
  { files: ['src/core/**', 'src/protocol/**', 'src/cli/**', 'src/server/**', 'webview-ui/**'], rules: noVscode },
);
