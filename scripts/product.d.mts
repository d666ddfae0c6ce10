// Types for scripts/product.mjs, so the TypeScript tests can import it.
import type { RunningCodeServer, StartOptions } from './code-server.mjs';

export const DEMO_MODEL_ENV: string;
export const SAMPLE_WORKSPACE_FIXTURE: string;

export function commitAll(dir: string, message: string): void;
export function initRepository(dir: string, message: string): void;
export function ensureSampleWorkspace(dir: string, options?: { reset?: boolean }): string;

export interface DemoModel {
  url: string;
  pid: number;
  stop(): void;
  exited: Promise<unknown>;
}

export function startDemoModel(options?: { port?: number }): Promise<DemoModel>;

export type ProductOptions = Omit<StartOptions, 'trust'> & { vsixPath: string; demoModelUrl?: string };

export function productServerOptions(options: ProductOptions): StartOptions;

export function startProductInCodeServer(options: ProductOptions): Promise<RunningCodeServer>;
