/**
 * Keeps the secrets the product holds (the API key, an auth token) out of
 * everything that leaves the engine (S7.2): events (and so every surface and
 * the run history), results, transcripts and log lines. A server error that
 * echoes the key, a tool that reads a `.env`, a model that repeats it: each
 * exact occurrence becomes `[redacted]` at this one boundary, before
 * anything is shown or written.
 */

export const REDACTED = '[redacted]';

/** Shorter strings are not treated as secrets: redacting them would garble ordinary text. */
const MIN_SECRET_LENGTH = 8;

export class Redactor {
  readonly #secrets: () => ReadonlyArray<string | null | undefined>;

  constructor(secrets: () => ReadonlyArray<string | null | undefined>) {
    this.#secrets = secrets;
  }

  /** The secrets in effect now (they can change: a key set while the window is open). */
  #current(): string[] {
    let all: ReadonlyArray<string | null | undefined>;
    try {
      all = this.#secrets();
    } catch {
      return [];
    }
    return all.filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH);
  }

  text(text: string): string {
    let out = text;
    for (const secret of this.#current()) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  }

  /** A copy of a JSON-like value with every string redacted; the value itself when nothing changed. */
  value<T>(value: T): T {
    const secrets = this.#current();
    if (secrets.length === 0) return value;
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return secrets.some((s) => v.includes(s)) ? this.text(v) : v;
      if (Array.isArray(v)) {
        const mapped = v.map(walk);
        return mapped.some((m, i) => m !== v[i]) ? mapped : v;
      }
      if (v && typeof v === 'object') {
        let changed = false;
        const entries = Object.entries(v).map(([k, x]) => {
          const y = walk(x);
          if (y !== x) changed = true;
          return [k, y] as const;
        });
        return changed ? Object.fromEntries(entries) : v;
      }
      return v;
    };
    return walk(value) as T;
  }

  /** A redactor for text that arrives in pieces, where a secret may be split across two of them. */
  stream(): TextStreamRedactor {
    return new TextStreamRedactor(this);
  }

  /** The longest end of `text` that could be the start of a secret. */
  heldBack(text: string): number {
    let keep = 0;
    for (const secret of this.#current()) {
      for (let k = Math.min(secret.length - 1, text.length); k > keep; k--) {
        if (text.endsWith(secret.slice(0, k))) {
          keep = k;
          break;
        }
      }
    }
    return keep;
  }
}

/**
 * Passes text on as it streams, holding back only an end that might be the
 * first part of a secret until the next piece shows whether it is.
 */
export class TextStreamRedactor {
  #pending = '';

  constructor(private readonly redactor: Redactor) {}

  /** What can be shown now of everything received so far. */
  push(piece: string): string {
    const text = this.redactor.text(this.#pending + piece);
    const keep = this.redactor.heldBack(text);
    this.#pending = text.slice(text.length - keep);
    return text.slice(0, text.length - keep);
  }

  /** The held-back end, once no more text follows (it was not a secret). */
  flush(): string {
    const rest = this.#pending;
    this.#pending = '';
    return rest;
  }

  /** Drops the held-back end (the text it belonged to is void, as after a retry). */
  discard(): void {
    this.#pending = '';
  }
}
