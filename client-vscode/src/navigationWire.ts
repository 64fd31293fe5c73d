/**
 * VS Code's navigation answers as `agent/navigate` sends them (no `vscode` import:
 * unit-tested). The shapes are the parts of `vscode.Location`, `LocationLink`, `Hover`,
 * `DocumentSymbol`, `SymbolInformation`, `CallHierarchyItem` and `WorkspaceEdit` that go on
 * the wire. VS Code's `SymbolKind` is LSP's minus one.
 */
import type { NavCall, NavLocation, NavSymbol, NavTextEdit } from './protocol';

export interface PositionLike {
  line: number;
  character: number;
}
export interface RangeLike {
  start: PositionLike;
  end: PositionLike;
}
/** A `vscode.Uri` (its `toString()` is the URI the server knows). */
export interface UriLike {
  toString(): string;
}
export interface LocationLike {
  uri: UriLike;
  range: RangeLike;
}
export interface LocationLinkLike {
  targetUri: UriLike;
  targetRange: RangeLike;
  targetSelectionRange?: RangeLike;
}
export type MarkedLike = string | { value: string; language?: string };
export interface HoverLike {
  contents: MarkedLike[];
}
export interface DocumentSymbolLike {
  name: string;
  detail?: string;
  kind: number;
  selectionRange: RangeLike;
  children?: DocumentSymbolLike[];
}
export interface SymbolInformationLike {
  name: string;
  kind: number;
  containerName?: string;
  location: LocationLike;
}
export interface CallItemLike {
  name: string;
  kind: number;
  detail?: string;
  uri: UriLike;
  selectionRange: RangeLike;
}
export interface TextEditLike {
  range: RangeLike;
  newText: string;
}

function range(r: RangeLike): RangeLike {
  return { start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } };
}

/** Definitions, references or implementations: `Location`s or `LocationLink`s. */
export function locationsToWire(found: readonly (LocationLike | LocationLinkLike)[] | undefined): NavLocation[] {
  return (found ?? []).map((item) =>
    'targetUri' in item
      ? { uri: item.targetUri.toString(), range: range(item.targetSelectionRange ?? item.targetRange) }
      : { uri: item.uri.toString(), range: range(item.range) },
  );
}

/** Every hover's contents, as the markdown shown (code blocks for the marked strings). */
export function hoverToWire(hovers: readonly HoverLike[] | undefined): string {
  const parts: string[] = [];
  for (const hover of hovers ?? []) {
    for (const part of hover.contents) {
      const text = typeof part === 'string' ? part : part.language ? '```' + part.language + '\n' + part.value + '\n```' : part.value;
      if (text.trim()) {
        parts.push(text.trim());
      }
    }
  }
  return parts.join('\n\n');
}

/** A document's outline, flat, each symbol with the names of those it is in. */
export function documentSymbolsToWire(uri: string, found: readonly (DocumentSymbolLike | SymbolInformationLike)[] | undefined): NavSymbol[] {
  const out: NavSymbol[] = [];
  const walk = (symbol: DocumentSymbolLike | SymbolInformationLike, container: string[]): void => {
    if ('location' in symbol) {
      out.push(symbolInformation(symbol));
      return;
    }
    const wire: NavSymbol = { name: symbol.name, kind: symbol.kind + 1, uri, range: range(symbol.selectionRange), container };
    if (symbol.detail) {
      wire.detail = symbol.detail;
    }
    out.push(wire);
    for (const child of symbol.children ?? []) {
      walk(child, [...container, symbol.name]);
    }
  };
  for (const symbol of found ?? []) {
    walk(symbol, []);
  }
  return out;
}

export function symbolInformation(symbol: SymbolInformationLike): NavSymbol {
  return {
    name: symbol.name,
    kind: symbol.kind + 1,
    uri: symbol.location.uri.toString(),
    range: range(symbol.location.range),
    container: symbol.containerName ? [symbol.containerName] : [],
  };
}

export function callItemToWire(item: CallItemLike): NavSymbol {
  const wire: NavSymbol = { name: item.name, kind: item.kind + 1, uri: item.uri.toString(), range: range(item.selectionRange), container: [] };
  if (item.detail) {
    wire.detail = item.detail;
  }
  return wire;
}

/** Callers (each with the calls in it) or callees (each with the calls of it in `asked`). */
export function callsToWire(
  calls: readonly { from?: CallItemLike; to?: CallItemLike; fromRanges: readonly RangeLike[] }[] | undefined,
  asked: CallItemLike,
): NavCall[] {
  return (calls ?? []).flatMap((call) => {
    const item = call.from ?? call.to;
    if (!item) {
      return [];
    }
    const sitesIn = call.from ? call.from.uri : asked.uri;
    return [{ symbol: callItemToWire(item), sites: call.fromRanges.map((r) => ({ uri: sitesIn.toString(), range: range(r) })) }];
  });
}

/** A rename's `WorkspaceEdit.entries()` as `changes` per document (never applied here). */
export function renameToWire(entries: readonly [UriLike, readonly TextEditLike[]][]): Record<string, NavTextEdit[]> {
  const changes: Record<string, NavTextEdit[]> = {};
  for (const [uri, edits] of entries) {
    const key = uri.toString();
    changes[key] = [...(changes[key] ?? []), ...edits.map((e) => ({ range: range(e.range), newText: e.newText }))];
  }
  return changes;
}
