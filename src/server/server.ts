// The agent-file language server (S6.5). Diagnostics, completions and hover
// for agent definition files arrive with the language-support issue; until
// then the server starts, answers `initialize` and offers no features.
import { createConnection, ProposedFeatures, TextDocumentSyncKind } from 'vscode-languageserver/node';

const connection = createConnection(ProposedFeatures.all);
connection.onInitialize(() => ({ capabilities: { textDocumentSync: TextDocumentSyncKind.None } }));
connection.listen();
