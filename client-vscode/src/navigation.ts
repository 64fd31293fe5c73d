/**
 * Answers `agent/navigate`: the agent's questions about the code (definition, references,
 * hover, outlines, implementations, callers and callees, a rename), from VS Code's own
 * providers (`vscode.execute*Provider`: the built-in TypeScript features, Pylance, any
 * extension's), so the model reads what the editor would show the user. A rename comes back
 * as the WorkspaceEdit the provider computed, not applied: the server applies it as one of
 * the agent's edits, reviewed inline per hunk.
 *
 * VS Code does not say whether a document has a provider: an empty answer is sent as
 * `answered: false`, and the server asks the language servers it starts itself.
 */
import * as vscode from 'vscode';
import type { CancellationToken, Disposable, LanguageClient } from 'vscode-languageclient/node';
import {
  callsToWire,
  documentSymbolsToWire,
  hoverToWire,
  locationsToWire,
  renameToWire,
  symbolInformation,
  type CallItemLike,
  type DocumentSymbolLike,
  type HoverLike,
  type LocationLike,
  type LocationLinkLike,
  type SymbolInformationLike,
} from './navigationWire';
import { Methods, type NavigateParams, type NavigateResult } from './protocol';

const BY = 'VS Code';
const NONE: NavigateResult = { answered: false };

export class NavigationAnswers implements Disposable {
  private handler: Disposable | undefined;

  attach(client: Pick<LanguageClient, 'onRequest'>): void {
    this.handler?.dispose();
    this.handler = client.onRequest(Methods.navigate, (params: NavigateParams, _token: CancellationToken) => this.answer(params));
  }

  async answer(params: NavigateParams): Promise<NavigateResult> {
    const run = <T>(command: string, ...args: unknown[]): Thenable<T | undefined> => vscode.commands.executeCommand<T | undefined>(command, ...args);
    if (params.action === 'workspaceSymbols') {
      const found = await run<SymbolInformationLike[]>('vscode.executeWorkspaceSymbolProvider', params.query ?? '');
      return found && found.length > 0 ? { answered: true, by: BY, symbols: found.map(symbolInformation) } : NONE;
    }
    const uri = vscode.Uri.parse(params.uri);
    // The providers answer for a document VS Code has loaded (not shown to the user).
    await vscode.workspace.openTextDocument(uri);
    const at = params.position ?? { line: 0, character: 0 };
    const position = new vscode.Position(at.line, at.character);
    switch (params.action) {
      case 'definition':
      case 'references':
      case 'implementations': {
        const command = {
          definition: 'vscode.executeDefinitionProvider',
          references: 'vscode.executeReferenceProvider',
          implementations: 'vscode.executeImplementationProvider',
        }[params.action];
        const locations = locationsToWire(await run<(LocationLike | LocationLinkLike)[]>(command, uri, position));
        return locations.length > 0 ? { answered: true, by: BY, locations } : NONE;
      }
      case 'hover': {
        const hover = hoverToWire(await run<HoverLike[]>('vscode.executeHoverProvider', uri, position));
        return hover ? { answered: true, by: BY, hover } : NONE;
      }
      case 'documentSymbols': {
        const symbols = documentSymbolsToWire(
          params.uri,
          await run<(DocumentSymbolLike | SymbolInformationLike)[]>('vscode.executeDocumentSymbolProvider', uri),
        );
        return symbols.length > 0 ? { answered: true, by: BY, symbols } : NONE;
      }
      case 'incomingCalls':
      case 'outgoingCalls': {
        const items = await run<CallItemLike[]>('vscode.prepareCallHierarchy', uri, position);
        const item = items?.[0];
        if (!item) {
          return NONE;
        }
        const command = params.action === 'incomingCalls' ? 'vscode.provideIncomingCalls' : 'vscode.provideOutgoingCalls';
        const calls = await run<{ from?: CallItemLike; to?: CallItemLike; fromRanges: vscode.Range[] }[]>(command, item);
        return { answered: true, by: BY, calls: callsToWire(calls, item) };
      }
      case 'rename': {
        const edit = await run<vscode.WorkspaceEdit>('vscode.executeDocumentRenameProvider', uri, position, params.newName ?? '');
        const entries = edit?.entries() ?? [];
        return entries.length > 0 ? { answered: true, by: BY, edit: { changes: renameToWire(entries) } } : NONE;
      }
    }
    return NONE;
  }

  dispose(): void {
    this.handler?.dispose();
    this.handler = undefined;
  }
}
