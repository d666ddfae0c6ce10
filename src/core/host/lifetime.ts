/**
 * How long the agent host lives, and what happens to an approval nobody is
 * there to answer.
 *
 *   - The host exits once nothing keeps it for `idleExitSeconds`: no client
 *     connected, no agent at work, no approval waiting. A client that
 *     connects, or a run that starts, keeps it.
 *   - An approval asked while no client is connected waits
 *     `unattendedApprovalSeconds` (counted again whenever the last client
 *     leaves); a client that connects meanwhile shows it and the wait stops.
 *     When the time is up it is denied, and the denial says why.
 */

export interface LifetimeSettings {
  idleExitSeconds: number;
  unattendedApprovalSeconds: number;
}

export interface LifetimeOptions {
  settings(): LifetimeSettings;
  clients(): number;
  busy(): boolean;
  /** Ids of the approvals waiting now. */
  pending(): readonly string[];
  deny(approvalId: string, reason: string): void;
  exit(reason: string): void;
  /** The host has just become idle: a moment to give memory back. */
  rest?(): void;
}

export class HostLifetime {
  readonly #options: LifetimeOptions;
  #idleSince: number | null = null;
  #exitTimer: NodeJS.Timeout | null = null;
  readonly #unattended = new Map<string, NodeJS.Timeout>();
  #disposed = false;

  constructor(options: LifetimeOptions) {
    this.#options = options;
  }

  /** When the host exits unless something keeps it; null while something does. */
  get idleExitAt(): number | null {
    return this.#idleSince === null ? null : this.#idleSince + this.#options.settings().idleExitSeconds * 1000;
  }

  /** Something that may keep the host changed: a client came or went, a run started or ended, an approval opened or closed, a setting. */
  changed(): void {
    if (this.#disposed) return;
    const { clients, busy, pending } = this.#options;
    const idle = clients() === 0 && !busy() && pending().length === 0;
    if (!idle) {
      this.#idleSince = null;
      this.#clearExit();
      return;
    }
    if (this.#idleSince === null) {
      this.#idleSince = Date.now();
      this.#options.rest?.();
    }
    this.#clearExit();
    const wait = Math.max(0, this.idleExitAt! - Date.now());
    this.#exitTimer = setTimeout(() => {
      this.#exitTimer = null;
      // Checked again: what keeps the host may have come at the last moment.
      if (clients() === 0 && !busy() && pending().length === 0) this.#options.exit(`nothing kept it for ${describeSeconds(this.#options.settings().idleExitSeconds)}`);
      else this.changed();
    }, wait);
  }

  approvalRequested(approvalId: string): void {
    if (this.#options.clients() === 0) this.#startUnattended(approvalId);
    this.changed();
  }

  approvalSettled(approvalId: string): void {
    this.#stopUnattended(approvalId);
    this.changed();
  }

  /** A client connected or left: approvals wait for it, or for nobody. */
  clientsChanged(): void {
    if (this.#options.clients() > 0) for (const id of [...this.#unattended.keys()]) this.#stopUnattended(id);
    else for (const id of this.#options.pending()) if (!this.#unattended.has(id)) this.#startUnattended(id);
    this.changed();
  }

  #startUnattended(approvalId: string): void {
    const seconds = this.#options.settings().unattendedApprovalSeconds;
    const timer = setTimeout(() => {
      this.#unattended.delete(approvalId);
      this.#options.deny(approvalId, `nobody answered within ${describeSeconds(seconds)}: no VS Code window or terminal was connected to ask (setting subagents.host.unattendedApprovalSeconds)`);
    }, seconds * 1000);
    this.#unattended.set(approvalId, timer);
  }

  #stopUnattended(approvalId: string): void {
    const timer = this.#unattended.get(approvalId);
    if (timer) clearTimeout(timer);
    this.#unattended.delete(approvalId);
  }

  #clearExit(): void {
    if (this.#exitTimer) clearTimeout(this.#exitTimer);
    this.#exitTimer = null;
  }

  dispose(): void {
    this.#disposed = true;
    this.#clearExit();
    for (const timer of this.#unattended.values()) clearTimeout(timer);
    this.#unattended.clear();
  }
}

/** "30 minutes", "1 minute 30 seconds", "45 seconds". */
export function describeSeconds(seconds: number): string {
  const whole = Math.round(seconds);
  const minutes = Math.floor(whole / 60);
  const rest = whole % 60;
  const part = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (minutes === 0) return part(rest, 'second');
  return rest ? `${part(minutes, 'minute')} ${part(rest, 'second')}` : part(minutes, 'minute');
}
