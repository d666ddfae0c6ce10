import './style.css';
import { mountRunsView, type WebviewApi } from './runsView';

/** The Runs view's page: the view (runsView.ts) mounted on VS Code's webview API. */

declare function acquireVsCodeApi(): WebviewApi;

const view = mountRunsView(document.getElementById('root')!, acquireVsCodeApi());
// For the benchmark and tests: resolves when every message so far is on screen.
(window as unknown as { subagentsRunsIdle: () => Promise<void> }).subagentsRunsIdle = () => view.idle();
