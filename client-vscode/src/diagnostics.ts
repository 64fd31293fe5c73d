/**
 * Answers `agent/diagnostics`: the problems VS Code shows for each document, from every
 * extension (Pylance, the built-in TypeScript features, linters), as LSP `Diagnostic`s.
 * The server asks just before an agent edit and again after it, until the problems of the
 * new text have settled, and tells the model only the new errors and warnings.
 *
 * `updates` counts the `onDidChangeDiagnostics` events of a document since the extension
 * started: a language server that publishes the same problems again for the new text
 * changes nothing else the server could see.
 */
import * as vscode from 'vscode';
import type { CancellationToken, Disposable, LanguageClient } from 'vscode-languageclient/node';
import { toWire } from './diagnosticsWire';
import { Methods, type DiagnosticsParams, type DiagnosticsResult, type DocumentDiagnostics } from './protocol';

export class DiagnosticsAnswers implements Disposable {
  private handler: Disposable | undefined;
  private readonly updates = new Map<string, number>();
  private readonly listener: Disposable;

  constructor() {
    this.listener = vscode.languages.onDidChangeDiagnostics((event) => {
      for (const uri of event.uris) {
        const key = uri.toString();
        this.updates.set(key, (this.updates.get(key) ?? 0) + 1);
      }
    });
  }

  attach(client: Pick<LanguageClient, 'onRequest'>): void {
    this.handler?.dispose();
    this.handler = client.onRequest(Methods.diagnostics, (params: DiagnosticsParams, _token: CancellationToken) => this.answer(params));
  }

  answer(params: DiagnosticsParams): DiagnosticsResult {
    const items: DocumentDiagnostics[] = [];
    if (params.uris.length === 0) {
      for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
        if (uri.scheme === 'file') {
          items.push(this.document(uri.toString(), uri, diagnostics));
        }
      }
    } else {
      for (const asked of params.uris) {
        const uri = vscode.Uri.parse(asked);
        // Answered under the URI as asked: the server knows its documents by it.
        items.push(this.document(asked, uri, vscode.languages.getDiagnostics(uri)));
      }
    }
    return { items };
  }

  private document(asked: string, uri: vscode.Uri, diagnostics: readonly vscode.Diagnostic[]): DocumentDiagnostics {
    return { uri: asked, diagnostics: diagnostics.map(toWire), updates: this.updates.get(uri.toString()) ?? 0 };
  }

  dispose(): void {
    this.handler?.dispose();
    this.handler = undefined;
    this.listener.dispose();
  }
}
