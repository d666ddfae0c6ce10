// Stands in for `vscode-languageclient/node` under the vscode fake (see
// installVscodeFake.ts): a client that records what it was given and told, and
// behaves as the library does where tests look: `initializationOptions` (a
// value, or a function called at each start) is read when the server
// starts; a notification to a client that is not running rejects.

export const TransportKind = { stdio: 0, ipc: 1, pipe: 2, socket: 3 } as const;

export class LanguageClient {
  static readonly made: LanguageClient[] = [];
  /** What each start of the server received as `initializationOptions`. */
  readonly initialized: unknown[] = [];
  readonly notifications: Array<[string, unknown]> = [];
  readonly diagnostics = undefined;
  running = false;

  constructor(
    readonly id: string,
    readonly name: string,
    readonly serverOptions: unknown,
    readonly clientOptions: { initializationOptions?: unknown },
  ) {
    LanguageClient.made.push(this);
  }

  start(): Promise<void> {
    const options = this.clientOptions.initializationOptions;
    this.initialized.push(typeof options === 'function' ? (options as () => unknown)() : options);
    this.running = true;
    return Promise.resolve();
  }

  stop(): Promise<void> {
    this.running = false;
    return Promise.resolve();
  }

  sendNotification(method: string, params: unknown): Promise<void> {
    if (!this.running) return Promise.reject(new Error("Client is not running and can't be stopped. It's current state is: stopped"));
    this.notifications.push([method, params]);
    return Promise.resolve();
  }

  dispose(): Promise<void> {
    return this.stop();
  }
}
