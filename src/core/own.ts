/**
 * A value of a plain object by a key that comes from outside (an agent
 * file's model name, a variable a server's settings name, an id typed in a
 * terminal): only the object's own entries count, so `constructor`,
 * `toString` or `__proto__` find nothing rather than Object's own members.
 */
export function own<T>(record: Readonly<Record<string, T>> | NodeJS.ProcessEnv, key: string): T | undefined {
  return Object.hasOwn(record, key) ? (record as Record<string, T>)[key] : undefined;
}
