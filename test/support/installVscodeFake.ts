// Imported first by a unit test of code under src/vscode/: from here on,
// `import * as vscode from 'vscode'` gets test/support/vscodeFake.ts, and
// `vscode-languageclient/node` (which needs the real editor) gets
// test/support/languageClientFake.ts.
import { registerHooks } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const fakes: Record<string, string> = {
  vscode: pathToFileURL(path.join(import.meta.dirname, 'vscodeFake.ts')).href,
  'vscode-languageclient/node': pathToFileURL(path.join(import.meta.dirname, 'languageClientFake.ts')).href,
};
registerHooks({
  resolve: (specifier, context, next) => (fakes[specifier] ? { url: fakes[specifier], shortCircuit: true } : next(specifier, context)),
});
