/** A VS Code diagnostic as `agent/diagnostics` sends it (no `vscode` import: unit-tested). */
import type { EditorDiagnostic } from './protocol';

/** The parts of a `vscode.Diagnostic` that go on the wire (a plain shape, for unit tests). */
export interface DiagnosticLike {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  /** VS Code's severity: 0 error, 1 warning, 2 information, 3 hint. */
  severity: number;
  message: string;
  source?: string;
  code?: string | number | { value: string | number };
}

/** A VS Code diagnostic in LSP's shape (severity 1 error to 4 hint). */
export function toWire(diagnostic: DiagnosticLike): EditorDiagnostic {
  const { start, end } = diagnostic.range;
  const wire: EditorDiagnostic = {
    range: { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } },
    severity: diagnostic.severity + 1,
    message: diagnostic.message,
  };
  if (diagnostic.source) {
    wire.source = diagnostic.source;
  }
  const code = typeof diagnostic.code === 'object' ? diagnostic.code.value : diagnostic.code;
  if (code !== undefined) {
    wire.code = code;
  }
  return wire;
}
