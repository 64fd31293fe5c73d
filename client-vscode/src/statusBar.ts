/**
 * The status bar during a run: `$(sync~spin) Agent · step 3/20 · edit_file app.py` (click:
 * show the output) and a `$(stop)` item that cancels; afterwards the final status for a few
 * seconds, then nothing.
 */
import * as vscode from 'vscode';
import type { RunView } from './runView';

export const FINAL_STATUS_MS = 8000;

export class RunStatusBar implements vscode.Disposable {
  private readonly main: vscode.StatusBarItem;
  private readonly stop: vscode.StatusBarItem;
  private hideTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    this.main = vscode.window.createStatusBarItem('status', vscode.StatusBarAlignment.Left, 50);
    this.main.name = 'Agent run';
    this.main.command = 'agentls.showOutput';
    this.stop = vscode.window.createStatusBarItem('cancel', vscode.StatusBarAlignment.Left, 49);
    this.stop.name = 'Agent: Cancel';
    this.stop.text = '$(stop)';
    this.stop.tooltip = 'Cancel the agent run';
    this.stop.command = 'agentls.cancel';
  }

  /** The text shown now (empty when hidden); read by the tests. */
  get text(): string {
    return this.visible ? this.main.text : '';
  }

  private visible = false;

  showRun(view: RunView): void {
    this.clearTimer();
    this.main.text = view.statusText();
    this.main.tooltip = view.tooltip();
    this.main.backgroundColor = undefined;
    this.main.show();
    this.stop.show();
    this.visible = true;
  }

  showFinal(text: string, failed: boolean): void {
    this.clearTimer();
    this.stop.hide();
    this.main.text = text;
    this.main.tooltip = 'Agent run finished. Click to show the output.';
    this.main.backgroundColor = failed ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.main.show();
    this.visible = true;
    this.hideTimer = setTimeout(() => this.hide(), FINAL_STATUS_MS);
  }

  hide(): void {
    this.clearTimer();
    this.main.hide();
    this.stop.hide();
    this.visible = false;
  }

  private clearTimer(): void {
    if (this.hideTimer) {
      clearTimeout(this.hideTimer);
      this.hideTimer = undefined;
    }
  }

  dispose(): void {
    this.clearTimer();
    this.main.dispose();
    this.stop.dispose();
  }
}
