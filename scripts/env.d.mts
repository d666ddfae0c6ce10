// Types for scripts/env.mjs, so the TypeScript tests can import it.
import type { SpawnSyncOptions } from 'node:child_process';

export const root: string;
export function cleanEnv(env?: NodeJS.ProcessEnv): Record<string, string>;
export function run(cmd: string, args: string[], opts?: SpawnSyncOptions): number;
export function mustRun(cmd: string, args: string[], opts?: SpawnSyncOptions): void;
export function ensureDependencies(): void;
export function node24(): string;
export function node24Env(extra?: Record<string, string>, env?: NodeJS.ProcessEnv): Record<string, string>;
