"""A tiny language server (pygls) for the failure cases of agentls's LSP client.

python fake_language_server.py silent   initializes, takes documents, never publishes
python fake_language_server.py crash    exits (code 3, a line on stderr) at the first
                                        document it is given
python fake_language_server.py echo     publishes, with the document's version, an
                                        error at every `undefined_name`
python fake_language_server.py die-on-request
                                        publishes like echo, and exits (code 4) when asked
                                        for references or a rename
"""

from __future__ import annotations

import os
import sys

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

MODE = sys.argv[1] if len(sys.argv) > 1 else "silent"
server = LanguageServer("fake-language-server", "1")


def check(uri: str, version: int, text: str) -> None:
    if MODE == "crash":
        sys.stderr.write("fake-language-server: cannot analyse this\n")
        sys.stderr.flush()
        os._exit(3)  # a crash: pygls would turn SystemExit into a clean exit
    if MODE not in ("echo", "die-on-request"):
        return
    found = []
    for number, line in enumerate(text.splitlines()):
        at = line.find("undefined_name")
        if at >= 0:
            span = lsp.Range(lsp.Position(number, at), lsp.Position(number, at + 14))
            found.append(
                lsp.Diagnostic(
                    span,
                    "undefined_name is not defined",
                    lsp.DiagnosticSeverity.Error,
                    source="echo",
                )
            )
    server.text_document_publish_diagnostics(
        lsp.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=version)
    )


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(params: lsp.DidOpenTextDocumentParams) -> None:
    doc = params.text_document
    check(doc.uri, doc.version, doc.text)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(params: lsp.DidChangeTextDocumentParams) -> None:
    doc = server.workspace.get_text_document(params.text_document.uri)
    check(doc.uri, params.text_document.version, doc.source)


def die(*args: object) -> None:
    sys.stderr.write("fake-language-server: died answering\n")
    sys.stderr.flush()
    os._exit(4)


if MODE == "die-on-request":
    server.feature(lsp.TEXT_DOCUMENT_REFERENCES)(die)
    server.feature(lsp.TEXT_DOCUMENT_RENAME)(die)


if __name__ == "__main__":
    server.start_io()
