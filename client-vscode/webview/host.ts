/**
 * The webview's line to the extension: VS Code's API (which may be acquired only once),
 * the messages it posts, and the view state VS Code keeps while the webview is hidden.
 */
import type { FromWebview } from '../src/panel/messages';

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();

export function post(message: FromWebview): void {
  vscode.postMessage(message);
}

/** What survives the webview being hidden and shown again. */
export interface ViewState {
  /** The prompt being written. */
  draft: string;
  /** How many items of the conversation are in the DOM. */
  shown: number;
  /** Tool cards and review notes the user expanded. */
  open: string[];
}

/** The view state kept last time; each field may be missing (an older webview wrote it). */
export function savedViewState(): Partial<ViewState> {
  return (vscode.getState() as Partial<ViewState> | undefined) ?? {};
}

export function keepViewState(state: ViewState): void {
  vscode.setState(state);
}
