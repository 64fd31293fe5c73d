/**
 * The status bar during a run: `$(sync~spin) Agent · step 3/20 · edit_file app.py` (click:
 * show the output) and a `$(stop)` item that cancels; afterwards the final status for a few
 * seconds, then nothing. In Restricted Mode its tooltip also says what that means for the
 * agent, with a link to manage Workspace Trust.
 */
import * as vscode from 'vscode';
import type { RunView } from './runView';
import { MANAGE_TRUST_COMMAND, MANAGE_TRUST_LABEL, RESTRICTED_NOTICE } from './trust';

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
  private restricted = false;
  private tooltipBase = '';

  /** The tooltip as text (read by the tests). */
  get tooltipText(): string {
    const tooltip = this.main.tooltip;
    return typeof tooltip === 'string' ? tooltip : (tooltip?.value ?? '');
  }

  setRestricted(restricted: boolean): void {
    this.restricted = restricted;
    this.setTooltip(this.tooltipBase);
  }

  private setTooltip(text: string): void {
    this.tooltipBase = text;
    this.main.tooltip = this.restricted ? this.restrictedTooltip(text) : text;
  }

  private restrictedTooltip(text: string): vscode.MarkdownString {
    const markdown = new vscode.MarkdownString(undefined, true);
    markdown.appendText(text);
    markdown.appendMarkdown(`\n\n---\n\n$(shield) ${RESTRICTED_NOTICE} [${MANAGE_TRUST_LABEL}](command:${MANAGE_TRUST_COMMAND})`);
    markdown.isTrusted = { enabledCommands: [MANAGE_TRUST_COMMAND] };
    return markdown;
  }

  showRun(view: RunView): void {
    this.clearTimer();
    this.finalOf = undefined;
    this.main.text = view.statusText();
    this.setTooltip(view.tooltip());
    this.main.backgroundColor = undefined;
    this.main.show();
    this.stop.show();
    this.visible = true;
  }

  /** The final status of the run shown now, if any (its text may still change). */
  private finalOf: string | undefined;

  showFinal(text: string, failed: boolean, runId?: string): void {
    this.clearTimer();
    this.stop.hide();
    this.finalOf = runId;
    this.main.text = text;
    this.setTooltip('Agent run finished. Click to show the output.');
    this.main.backgroundColor = failed ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.main.show();
    this.visible = true;
    this.hideTimer = setTimeout(() => this.hide(), FINAL_STATUS_MS);
  }

  /** A new text for the final status of `runId`, if it is the one shown. */
  updateFinal(runId: string, text: string): void {
    if (this.visible && this.finalOf === runId) {
      this.main.text = text;
    }
  }

  hide(): void {
    this.finalOf = undefined;
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
