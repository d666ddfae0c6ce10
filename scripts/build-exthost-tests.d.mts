// Types for scripts/build-exthost-tests.mjs.
export const outDir: string;
export function buildExthostTests(): Promise<{ index: string; suites: number }>;
