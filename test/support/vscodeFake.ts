// A small stand-in for the `vscode` module, so code under src/vscode/ can be
// unit-tested in plain Node (test/support/installVscodeFake.ts routes `vscode` here).
// It holds only what those tests touch, behaves as VS Code documents it, and
// records what the code showed (`shown`) so a test can check it. Real VS Code
// is covered by the extension-host and end-to-end suites.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

type Listener<T> = (value: T) => unknown;

export class Disposable {
  constructor(private readonly callOnDispose: () => unknown) {}
  static from(...items: Array<{ dispose(): unknown }>): Disposable {
    return new Disposable(() => items.forEach((i) => i.dispose()));
  }
  dispose(): void {
    this.callOnDispose();
  }
}

export class EventEmitter<T> {
  readonly #listeners = new Set<Listener<T>>();
  readonly event = (listener: Listener<T>): Disposable => {
    this.#listeners.add(listener);
    return new Disposable(() => this.#listeners.delete(listener));
  };
  get listenerCount(): number {
    return this.#listeners.size;
  }
  fire(value: T): void {
    for (const listener of [...this.#listeners]) listener(value);
  }
  dispose(): void {
    this.#listeners.clear();
  }
}

export interface CancellationToken {
  isCancellationRequested: boolean;
  onCancellationRequested: (listener: Listener<void>) => Disposable;
}

export class CancellationTokenSource {
  readonly #emitter = new EventEmitter<void>();
  #cancelled = false;
  readonly token: CancellationToken & { readonly listeners: number } = {
    get isCancellationRequested() {
      return false;
    },
    onCancellationRequested: this.#emitter.event,
    listeners: 0,
  };
  constructor() {
    const source = () => this;
    Object.defineProperties(this.token, {
      isCancellationRequested: { get: () => source().#cancelled },
      listeners: { get: () => source().#emitter.listenerCount },
    });
  }
  cancel(): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    this.#emitter.fire();
  }
  dispose(): void {
    this.#emitter.dispose();
  }
}

export class CancellationError extends Error {
  constructor() {
    super('Canceled');
    this.name = 'Canceled';
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
  ) {}
  static file(fsPath: string): Uri {
    return new Uri('file', path.resolve(fsPath));
  }
  static parse(value: string): Uri {
    const at = value.indexOf(':');
    return new Uri(value.slice(0, at), value.slice(at + 1));
  }
  static from(parts: { scheme: string; path: string }): Uri {
    return new Uri(parts.scheme, parts.path);
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(base.scheme, path.join(base.path, ...parts));
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}:${this.path}`;
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(startLine: number, startCharacter: number, endLine: number, endCharacter: number) {
    this.start = new Position(startLine, startCharacter);
    this.end = new Position(endLine, endCharacter);
  }
}

export class Location {
  constructor(
    readonly uri: Uri,
    readonly range: Range,
  ) {}
}

export class MarkdownString {
  constructor(public value = '') {}
}

export class ThemeIcon {
  constructor(
    readonly id: string,
    readonly color?: ThemeColor,
  ) {}
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}

export class TreeItem {
  id?: string;
  description?: string;
  tooltip?: string | MarkdownString;
  iconPath?: ThemeIcon;
  contextValue?: string;
  command?: { command: string; title: string; arguments?: unknown[] };
  constructor(
    readonly label: string,
    readonly collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}

export enum FileType {
  File = 1,
  Directory = 2,
}

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export class ChatRequestTurn {
  constructor(readonly prompt: string, readonly participant: string) {}
}

export class ChatResponseTurn {
  constructor(
    readonly participant: string,
    readonly result: { metadata?: Record<string, unknown> },
    readonly response: unknown[] = [],
  ) {}
}

export class ChatResponseMarkdownPart {
  constructor(readonly value: { value: string }) {}
}

export class LanguageModelTextPart {
  constructor(readonly value: string) {}
}

export class LanguageModelToolCallPart {
  constructor(
    readonly callId: string,
    readonly name: string,
    readonly input: object,
  ) {}
}

export class LanguageModelToolResult {
  constructor(readonly content: unknown[]) {}
}

export class LanguageModelError extends Error {
  static NoPermissions(message?: string): LanguageModelError {
    return new LanguageModelError(message, 'NoPermissions');
  }
  static NotFound(message?: string): LanguageModelError {
    return new LanguageModelError(message, 'NotFound');
  }
  constructor(
    message?: string,
    readonly code = '',
  ) {
    super(message);
  }
}

/** A text document as `openTextDocument` gives it: the text of an editor buffer, saved or not. */
export interface FakeDocument {
  uri: Uri;
  getText(): string;
}

/** What the code under test showed: messages (with their buttons) and progress notifications. */
export const shown: {
  /** `choose` clicks a button (or, with undefined, closes the notification): see holdMessages. `detail`: a modal's. */
  messages: Array<{ level: 'info' | 'warning' | 'error'; text: string; items: unknown[]; choose(item: string | undefined): void; modal?: boolean; detail?: string }>;
  progress: Array<{ title: string; reports: string[]; token: CancellationTokenSource; done: Promise<unknown> }>;
  commands: Array<{ command: string; args: unknown[] }>;
  /** Titles of the quick picks shown, and the answers the next ones give. */
  quickPicks: string[];
  quickPickAnswers: unknown[];
} = { messages: [], progress: [], commands: [], quickPicks: [], quickPickAnswers: [] };

const trustGranted = new EventEmitter<void>();

export function grantTrust(): void {
  workspace.isTrusted = true;
  trustGranted.fire();
}

/** Settings by full id (`subagents.history.maxRuns`); unset ones read as undefined, as VS Code gives a default. */
const configuration = new Map<string, unknown>();
/** The same, as set in the workspace's settings (they win over the user's, as in VS Code). */
const workspaceConfiguration = new Map<string, unknown>();
const configurationChanged = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();

/** Changes one setting as the Settings editor would (in the user settings, or the workspace's): the value, then onDidChangeConfiguration. */
export function setConfiguration(id: string, value: unknown, target: 'user' | 'workspace' = 'user'): void {
  const values = target === 'user' ? configuration : workspaceConfiguration;
  if (value === undefined) values.delete(id);
  else values.set(id, value);
  configurationChanged.fire({ affectsConfiguration: (section) => id === section || id.startsWith(`${section}.`) });
}

/** Open editor buffers, untitled ones included; tests add their own. */
const documents: FakeDocument[] = [];

export function resetFake(): void {
  fakeOptions.holdMessages = false;
  shown.messages.length = 0;
  shown.progress.length = 0;
  shown.commands.length = 0;
  shown.quickPicks.length = 0;
  shown.quickPickAnswers.length = 0;
  documents.length = 0;
  configuration.clear();
  workspaceConfiguration.clear();
  workspace.isTrusted = true;
  workspace.workspaceFolders = [];
  window.activeTextEditor = undefined;
}

export function openBuffer(uri: Uri, text: string): FakeDocument {
  const doc = { uri, getText: () => text };
  documents.push(doc);
  return doc;
}

/** With holdMessages, a message waits for its `choose` as a notification waits for the user; otherwise it is closed at once. */
export const fakeOptions = { holdMessages: false };

function message(level: 'info' | 'warning' | 'error') {
  return (text: string, ...items: unknown[]) => {
    let choose: (item: string | undefined) => void = () => undefined;
    const answered = new Promise<string | undefined>((resolve) => (choose = resolve));
    const options = items.find((i): i is { modal?: boolean; detail?: string } => typeof i === 'object' && i !== null);
    shown.messages.push({ level, text, items: items.filter((i) => typeof i === 'string'), choose, ...(options?.modal ? { modal: true, detail: options.detail } : {}) });
    if (!fakeOptions.holdMessages) choose(undefined);
    return answered;
  };
}

export const window = {
  activeTextEditor: undefined as { document: FakeDocument } | undefined,
  showInformationMessage: message('info'),
  showWarningMessage: message('warning'),
  showErrorMessage: message('error'),
  /** Answers what `shown.quickPickAnswers` holds next (nothing: the pick is dismissed). */
  showQuickPick<T>(items: readonly T[] | Thenable<readonly T[]>, options?: { title?: string }): Promise<T | undefined> {
    shown.quickPicks.push(options?.title ?? '');
    return Promise.resolve(items).then(() => shown.quickPickAnswers.shift() as T | undefined);
  },
  withProgress<T>(options: { title?: string }, task: (progress: { report(value: { message?: string }): void }, token: CancellationToken) => Thenable<T>): Thenable<T> {
    const source = new CancellationTokenSource();
    const reports: string[] = [];
    const done = Promise.resolve(task({ report: (value) => reports.push(value.message ?? '') }, source.token));
    shown.progress.push({ title: options.title ?? '', reports, token: source, done });
    return done;
  },
};

export const workspace = {
  isTrusted: true,
  onDidGrantWorkspaceTrust: trustGranted.event,
  onDidCloseTextDocument: new EventEmitter<FakeDocument>().event,
  onDidChangeConfiguration: configurationChanged.event,
  getConfiguration(section: string) {
    const id = (key: string) => `${section}.${key}`;
    return {
      get: <T>(key: string): T | undefined => (workspaceConfiguration.get(id(key)) ?? configuration.get(id(key))) as T | undefined,
      inspect: <T>(key: string) => ({ key: id(key), globalValue: configuration.get(id(key)) as T | undefined, workspaceValue: workspaceConfiguration.get(id(key)) as T | undefined }),
    };
  },
  workspaceFolders: [] as Array<{ uri: Uri; name: string; index: number }>,
  get textDocuments(): readonly FakeDocument[] {
    return documents;
  },
  getWorkspaceFolder(uri: Uri) {
    return this.workspaceFolders.find((f) => uri.scheme === 'file' && (uri.fsPath === f.uri.fsPath || uri.fsPath.startsWith(f.uri.fsPath + path.sep)));
  },
  asRelativePath(target: string | Uri): string {
    return typeof target === 'string' ? target : target.fsPath;
  },
  async openTextDocument(uri: Uri): Promise<FakeDocument> {
    const open = documents.find((d) => d.uri.toString() === uri.toString());
    if (open) return open;
    if (uri.scheme !== 'file') throw new Error(`cannot open ${uri.toString()}`);
    const text = await readFile(uri.fsPath, 'utf8');
    return { uri, getText: () => text };
  },
  fs: {
    async stat(uri: Uri): Promise<{ type: FileType }> {
      if (uri.scheme !== 'file') throw new Error(`EntryNotFound (FileSystemError): ${uri.toString()}`);
      const info = await stat(uri.fsPath);
      return { type: info.isDirectory() ? FileType.Directory : FileType.File };
    },
  },
};

export const languages = {
  onDidChangeDiagnostics: new EventEmitter<{ uris: Uri[] }>().event,
  getDiagnostics: () => [],
};

export const commands = {
  executeCommand(command: string, ...args: unknown[]): Promise<unknown> {
    shown.commands.push({ command, args });
    return Promise.resolve(undefined);
  },
};
