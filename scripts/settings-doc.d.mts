// Types for scripts/settings-doc.mjs, so the TypeScript tests can import it.
export const SETTINGS_DOC: string;
export const RUN_FLAGS: Record<string, string>;
export function anchor(heading: string): string;
export function renderSettingsDoc(pkg: unknown): string;
