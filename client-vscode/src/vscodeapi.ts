/**
 * The few VS Code UI calls the extension makes that wait on a human, behind one object so
 * that tests (in the real extension host) can replace them: an e2e test stubs
 * `showInputBox` to type a prompt instead of driving the input box.
 */
import * as vscode from 'vscode';

export interface Ui {
  showInputBox(options: vscode.InputBoxOptions): Thenable<string | undefined>;
  showQuickPick<T extends vscode.QuickPickItem>(items: T[], options: vscode.QuickPickOptions): Thenable<T | undefined>;
  showErrorMessage(message: string, ...actions: string[]): Thenable<string | undefined>;
  showWarningMessage(message: string, ...actions: string[]): Thenable<string | undefined>;
  showInformationMessage(message: string, ...actions: string[]): Thenable<string | undefined>;
  /** A modal warning (it blocks the window until answered): Cancel or Escape give undefined. */
  showModalWarning(message: string, detail: string, ...actions: string[]): Thenable<string | undefined>;
}

export function realUi(): Ui {
  return {
    showInputBox: (options) => vscode.window.showInputBox(options),
    showQuickPick: (items, options) => vscode.window.showQuickPick(items, options),
    showErrorMessage: (message, ...actions) => vscode.window.showErrorMessage(message, ...actions),
    showWarningMessage: (message, ...actions) => vscode.window.showWarningMessage(message, ...actions),
    showInformationMessage: (message, ...actions) => vscode.window.showInformationMessage(message, ...actions),
    showModalWarning: (message, detail, ...actions) => vscode.window.showWarningMessage(message, { modal: true, detail }, ...actions),
  };
}

/** The first workspace folder (the server's cwd), if any. */
export function workspaceFolder(): vscode.WorkspaceFolder | undefined {
  return vscode.workspace.workspaceFolders?.[0];
}

export function setContext(key: string, value: unknown): Thenable<unknown> {
  return vscode.commands.executeCommand('setContext', key, value);
}
