// Types for scripts/product.mjs, so the TypeScript tests can import it.
import type { RunningCodeServer, StartOptions } from './code-server.mjs';

export const DEMO_MODEL_ENV: string;

export interface DemoModel {
  url: string;
  pid: number;
  stop(): void;
  exited: Promise<unknown>;
}

export function startDemoModel(options?: { port?: number }): Promise<DemoModel>;

export function startProductInCodeServer(
  options: Omit<StartOptions, 'trust'> & { vsixPath: string; demoModelUrl?: string },
): Promise<RunningCodeServer>;
