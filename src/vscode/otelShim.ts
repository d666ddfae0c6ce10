import Module from 'node:module';
// A relative path on purpose: scripts/build.mjs marks the package name external, so
// this is the one way to get the real API into dist/extension.js without a build change.
import * as otel from '../../node_modules/@opentelemetry/api/dist/index.cjs';

/**
 * @anthropic-ai/sdk 1.12 requires `@opentelemetry/api` as soon as it loads
 * (its tracing module), but scripts/build.mjs leaves that package out of the
 * bundle and the .vsix ships no node_modules, so the packaged extension
 * failed to activate ("Cannot find module '@opentelemetry/api'"). This
 * bundles the real API (a no-op unless a tracing SDK registers itself) and
 * answers that one require with it, only when Node cannot resolve it itself,
 * so other extensions in the same host keep their own copies. Imported
 * first by extension.ts: it must run before the SDK loads. Remove it once the
 * build bundles the package.
 */
const ID = '@opentelemetry/api';
type Resolver = (request: string, ...rest: unknown[]) => string;
const loader = Module as unknown as { _resolveFilename: Resolver; _cache: Record<string, unknown> };
const resolve = loader._resolveFilename;

loader._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
  try {
    return resolve.call(this, request, ...rest);
  } catch (error) {
    if (request === ID) return `${ID}#bundled-by-subagents`;
    throw error;
  }
};
loader._cache[`${ID}#bundled-by-subagents`] = { id: ID, filename: ID, loaded: true, exports: otel, children: [], paths: [] };
