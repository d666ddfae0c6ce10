export const ENGINE_NOTE: string;
export interface ProgressOptions {
  label: string;
  estimate?: string;
  watch?: string;
  stages?: Array<[string, string]>;
  capture?: boolean;
  everyMs?: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}
export function withProgress(options: ProgressOptions, cmd: string, args: string[]): { status: number; error?: Error; output: string };
export function formatElapsed(ms: number): string;
export function progressLine(options: Pick<ProgressOptions, 'label' | 'estimate' | 'watch'> & { stages: Array<[string, string]> }, elapsedMs: number, sizeBytes?: number): string;
export function engineFilter(note: () => void): (line: string) => boolean;
