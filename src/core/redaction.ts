/**
 * Keeps the secrets the product holds (the API key, an auth token) out of
 * everything that leaves the engine: events (and so every surface and
 * the run history), results, transcripts, log lines, hook input and the
 * commit messages of worktrees. A server error that echoes the key, a tool
 * that reads a `.env`, a model that repeats it: each occurrence, and each
 * long enough piece of one (a key cut by a truncation), becomes
 * `[redacted]` at this one boundary, before anything is shown or written;
 * in strings and in object keys alike.
 */

export const REDACTED = '[redacted]';

/** Shorter strings are not treated as secrets: redacting them would garble ordinary text. */
const MIN_SECRET_LENGTH = 8;
/**
 * A run of at least this many characters of a secret is redacted wherever it
 * stands, so a secret cut by a truncation (a summary's "…", a result's cap,
 * a window onto the last characters of a text) is caught whatever cut it
 * and in whichever order cutting and redacting happen. Shorter runs say
 * next to nothing: the first 13 characters of an Anthropic key are its
 * public prefix (`sk-ant-api03-`).
 */
const MIN_FRAGMENT = 16;
/** Fragments are found from aligned blocks of the secret: a fragment of 2×BLOCK−1 characters or more holds a whole one. */
const BLOCK = 8;

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

  /** Where secrets, or fragments of them long enough to count, stand in `text`: sorted, merged [start, end) spans. */
  #spans(text: string, secrets: readonly string[]): Array<[number, number]> {
    const spans: Array<[number, number]> = [];
    for (const secret of secrets) {
      const minimum = Math.min(secret.length, MIN_FRAGMENT);
      if (secret.length < 2 * BLOCK) {
        for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + secret.length)) spans.push([at, at + secret.length]);
        continue;
      }
      for (let offset = 0; offset + BLOCK <= secret.length; offset += BLOCK) {
        const block = secret.slice(offset, offset + BLOCK);
        for (let at = text.indexOf(block); at !== -1; at = text.indexOf(block, at + 1)) {
          // Grow the match both ways while text and secret agree.
          let start = at;
          let from = offset;
          while (start > 0 && from > 0 && text[start - 1] === secret[from - 1]) {
            start--;
            from--;
          }
          let end = at + BLOCK;
          let to = offset + BLOCK;
          while (end < text.length && to < secret.length && text[end] === secret[to]) {
            end++;
            to++;
          }
          if (end - start >= minimum) spans.push([start, end]);
        }
      }
    }
    if (spans.length < 2) return spans;
    spans.sort((a, b) => a[0] - b[0]);
    const merged: Array<[number, number]> = [spans[0]!];
    for (const [start, end] of spans.slice(1)) {
      const last = merged.at(-1)!;
      if (start < last[1]) last[1] = Math.max(last[1], end);
      else merged.push([start, end]);
    }
    return merged;
  }

  #redact(text: string, secrets: readonly string[]): string {
    const spans = this.#spans(text, secrets);
    if (spans.length === 0) return text;
    let out = '';
    let from = 0;
    for (const [start, end] of spans) {
      out += `${text.slice(from, start)}${REDACTED}`;
      from = end;
    }
    return out + text.slice(from);
  }

  text(text: string): string {
    const secrets = this.#current();
    return secrets.length ? this.#redact(text, secrets) : text;
  }

  /** A copy of a JSON-like value with every string redacted, object keys included; the value itself when nothing changed. */
  value<T>(value: T): T {
    const secrets = this.#current();
    if (secrets.length === 0) return value;
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return this.#redact(v, secrets);
      if (Array.isArray(v)) {
        const mapped = v.map(walk);
        return mapped.some((m, i) => m !== v[i]) ? mapped : v;
      }
      if (v && typeof v === 'object') {
        let changed = false;
        const entries = Object.entries(v).map(([k, x]) => {
          const key = this.#redact(k, secrets);
          const y = walk(x);
          if (y !== x || key !== k) changed = true;
          return [key, y] as const;
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
    const text = this.#pending + piece;
    // Held back unredacted: with the next piece it may complete a secret, which then goes as one [redacted].
    const keep = this.redactor.heldBack(text);
    this.#pending = text.slice(text.length - keep);
    return this.redactor.text(text.slice(0, text.length - keep));
  }

  /** The held-back end, once no more text follows (redacted: it may be a long enough piece of a secret). */
  flush(): string {
    const rest = this.redactor.text(this.#pending);
    this.#pending = '';
    return rest;
  }

  /** Drops the held-back end (the text it belonged to is void, as after a retry). */
  discard(): void {
    this.#pending = '';
  }
}
