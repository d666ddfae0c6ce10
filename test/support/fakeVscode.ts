// Imported first by a unit test of code under src/vscode/: from here on,
// `import * as vscode from 'vscode'` gets test/support/vscodeFake.ts.
import { registerHooks } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const fake = pathToFileURL(path.join(import.meta.dirname, 'vscodeFake.ts')).href;
registerHooks({
  resolve: (specifier, context, next) => (specifier === 'vscode' ? { url: fake, shortCircuit: true } : next(specifier, context)),
});
