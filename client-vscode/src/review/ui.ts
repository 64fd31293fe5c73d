/**
 * What the inline review draws and the commands it offers: theme-coloured line decorations
 * (added and changed lines, a compact marker for removed lines whose hover shows the old
 * text, overview ruler marks), CodeLenses per hunk and per file, a status bar item with the
 * pending count and its quick pick, next/previous across files, a baseline document for
 * diffs. Nothing here takes focus unless the user asked for a place (a diff, next hunk).
 */
import * as path from 'path';
import * as vscode from 'vscode';
import { BASELINE_SCHEME, type ReviewController } from './controller';
import { FileReview, lineAt, splitLines, type Hunk } from './model';
import { autoSaveWords } from './protocol';

/** Shown in the DOM as `agentls.agentls.review` (publisher.extension.id). */
export const STATUS_ID = 'review';
const CONTEXT_PENDING = 'agentls.review.pending';
const CONTEXT_EDITOR = 'agentls.review.editorHasPending';

function name(uri: vscode.Uri): string {
  return path.basename(uri.fsPath);
}

/** The line a hunk is drawn on: its first line (a removal: the line after it, or the last). */
function anchorLine(review: FileReview, hunk: Hunk): number {
  const line = lineAt(review.text, hunk.start);
  const lines = Math.max(1, splitLines(review.text).length);
  return Math.min(line, lines - 1);
}

function fence(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((t) => t.length));
  return `${'`'.repeat(longest + 1)}\n${text.replace(/\n$/, '')}\n${'`'.repeat(longest + 1)}`;
}

export function registerReviewUi(controller: ReviewController): vscode.Disposable[] {
  const added = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('diffEditor.insertedLineBackground'),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.addedForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  const changedByUser = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('diffEditor.insertedLineBackground'),
    borderStyle: 'dashed',
    borderWidth: '0 0 0 2px',
    borderColor: new vscode.ThemeColor('editorOverviewRuler.modifiedForeground'),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.modifiedForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  const removed = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.deletedForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Right,
    after: {
      color: new vscode.ThemeColor('editorCodeLens.foreground'),
      backgroundColor: new vscode.ThemeColor('diffEditor.removedTextBackground'),
      margin: '0 0 0 2em',
      fontStyle: 'italic',
    },
  });
  const rule = (width: string): vscode.TextEditorDecorationType =>
    vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      borderStyle: 'solid',
      borderWidth: width,
      borderColor: new vscode.ThemeColor('editorOverviewRuler.deletedForeground'),
    });
  const ruleAbove = rule('1px 0 0 0');
  const ruleBelow = rule('0 0 1px 0');

  const draw = (editor: vscode.TextEditor): void => {
    const review = controller.review(editor.document.uri);
    const plain: vscode.DecorationOptions[] = [];
    const mine: vscode.DecorationOptions[] = [];
    const gone: vscode.DecorationOptions[] = [];
    const above: vscode.DecorationOptions[] = [];
    const below: vscode.DecorationOptions[] = [];
    for (const hunk of review?.hunks ?? []) {
      if (hunk.end > hunk.start) {
        const first = lineAt(review!.text, hunk.start);
        const last = lineAt(review!.text, hunk.end - 1);
        (hunk.changedByUser ? mine : plain).push({ range: new vscode.Range(first, 0, last, 0) });
      }
      if (hunk.oldText) {
        const count = splitLines(hunk.oldText).length;
        const hover = new vscode.MarkdownString(`**Removed by the agent** (${count} line${count === 1 ? '' : 's'}):\n\n${fence(hunk.oldText)}`);
        const line = anchorLine(review!, hunk);
        // One line: the old text itself (short); more: how many, the hover has them all. A
        // pure removal is drawn on the line after it (a rule above that line), or on the
        // last line when it removed the end of the file.
        const only = hunk.oldText.replace(/\r?\n$|\r$/, '').trim();
        const what = count === 1 ? only.length > 60 ? `${only.slice(0, 59)}…` : only || '(an empty line)' : `${count} lines`;
        const atEnd = hunk.start === hunk.end && lineAt(review!.text, hunk.start) > line;
        const where = hunk.start < hunk.end ? 'was' : atEnd ? 'removed below' : 'removed above';
        const options = { range: new vscode.Range(line, 0, line, 0), hoverMessage: hover, renderOptions: { after: { contentText: ` ${where}: ${what} ` } } };
        gone.push(options);
        if (hunk.start === hunk.end) {
          (atEnd ? below : above).push({ range: options.range });
        }
      }
    }
    editor.setDecorations(added, plain);
    editor.setDecorations(changedByUser, mine);
    editor.setDecorations(removed, gone);
    editor.setDecorations(ruleAbove, above);
    editor.setDecorations(ruleBelow, below);
  };
  const drawAll = (): void => {
    for (const editor of vscode.window.visibleTextEditors) {
      draw(editor);
    }
  };

  // -- CodeLens -------------------------------------------------------------------------------
  const lensesChanged = new vscode.EventEmitter<void>();
  let lensesAgain: Array<ReturnType<typeof setTimeout> | undefined> = [];
  const lenses: vscode.CodeLensProvider = {
    onDidChangeCodeLenses: lensesChanged.event,
    provideCodeLenses(document) {
      const review = controller.review(document.uri);
      if (!review || review.pending === 0) {
        return [];
      }
      const uri = document.uri.toString();
      const file = name(document.uri);
      const top = new vscode.Range(0, 0, 0, 0);
      // VS Code asks for lenses again at least 250 ms after a change is signalled and
      // shows new titles of a line's lenses 250 ms or more after that: a lens that counted
      // or numbered the changes ("2 agent changes", "change 2 of 3") would show a stale
      // count after every decision. So lenses carry no count (the status bar item, updated
      // at once, does) and name a change by its stable key.
      const out: vscode.CodeLens[] = [
        new vscode.CodeLens(top, {
          title: '$(sparkle) Agent changes to review',
          tooltip: `Review the agent's changes in ${file}`,
          command: 'agentls.review.showPending',
        }),
        new vscode.CodeLens(top, { title: 'Keep all', tooltip: `Keep all changes in ${file}`, command: 'agentls.review.keepFile', arguments: [uri] }),
        new vscode.CodeLens(top, { title: 'Undo all', tooltip: `Undo all changes in ${file}`, command: 'agentls.review.undoFile', arguments: [uri] }),
      ];
      review.hunks.forEach((hunk) => {
        const range = new vscode.Range(anchorLine(review, hunk), 0, anchorLine(review, hunk), 0);
        const by = controller.authorOf(hunk);
        const label = `change ${hunk.key} in ${file}${by ? ` (by the subagent ${by})` : ''}`;
        const args = [uri, hunk.key, document.version];
        out.push(
          new vscode.CodeLens(range, { title: '$(check) Keep', tooltip: `Keep ${label}`, command: 'agentls.review.keepHunk', arguments: args }),
          new vscode.CodeLens(range, { title: '$(discard) Undo', tooltip: `Undo ${label}`, command: 'agentls.review.undoHunk', arguments: args }),
          new vscode.CodeLens(range, { title: '$(diff) Diff', tooltip: `Diff of ${label}`, command: 'agentls.review.diff', arguments: args }),
        );
        if (by) {
          out.push(new vscode.CodeLens(range, { title: `$(hubot) ${by}`, tooltip: `The subagent ${by} made ${label}`, command: 'agentls.review.diff', arguments: args }));
        }
        if (hunk.changedByUser) {
          out.push(new vscode.CodeLens(range, { title: 'changed by you', tooltip: `You edited ${label}`, command: 'agentls.review.diff', arguments: args }));
        }
      });
      return out;
    },
  };

  // -- baseline documents (for diffs) ------------------------------------------------------
  const baselineChanged = new vscode.EventEmitter<vscode.Uri>();
  const baselineUri = (uri: vscode.Uri): vscode.Uri =>
    vscode.Uri.from({ scheme: BASELINE_SCHEME, path: uri.path, query: encodeURIComponent(uri.toString()) });
  const baselines: vscode.TextDocumentContentProvider = {
    onDidChange: baselineChanged.event,
    provideTextDocumentContent(uri) {
      const review = controller.review(vscode.Uri.parse(decodeURIComponent(uri.query)));
      return review ? review.baseline() : '';
    },
  };

  // -- status bar and context keys -------------------------------------------------------------
  const status = vscode.window.createStatusBarItem(STATUS_ID, vscode.StatusBarAlignment.Left, 50);
  status.name = 'Agent changes to review';
  status.command = 'agentls.review.showPending';
  const refresh = (uri?: vscode.Uri): void => {
    const count = controller.pendingCount;
    const files = [...controller.files.values()].filter((r) => r.pending > 0).length;
    if (count > 0) {
      status.text = `$(diff) ${count} agent change${count === 1 ? '' : 's'}`;
      const saving = [...controller.files.entries()].flatMap(([key, r]) => {
        const state = r.pending > 0 ? controller.autoSaveOf(vscode.Uri.parse(key)) : undefined;
        return state ? [`\n${name(vscode.Uri.parse(key))}: ${autoSaveWords(state.mode, state.saved)} (auto-save is on; what you undo is saved too)`] : [];
      });
      const autoSave = saving.join('');
      status.tooltip = `${count} change${count === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'} to keep or undo${autoSave}`;
      status.show();
    } else {
      status.hide();
    }
    void vscode.commands.executeCommand('setContext', CONTEXT_PENDING, count > 0);
    const active = vscode.window.activeTextEditor;
    void vscode.commands.executeCommand('setContext', CONTEXT_EDITOR, !!active && (controller.review(active.document.uri)?.pending ?? 0) > 0);
    drawAll();
    lensesChanged.fire();
    // VS Code drops a lens refresh it has scheduled when the editor loses focus (it asks
    // again only when the editor gets focus back): a click on Keep followed at once by a
    // click elsewhere (the panel, the palette) would leave the old lenses drawn. Asking
    // again after the focus has moved makes it draw them anyway.
    clearTimeout(lensesAgain[0]);
    clearTimeout(lensesAgain[1]);
    lensesAgain = [setTimeout(() => lensesChanged.fire(), 500), setTimeout(() => lensesChanged.fire(), 1500)];
    for (const key of uri ? [uri.toString()] : controller.files.keys()) {
      baselineChanged.fire(baselineUri(vscode.Uri.parse(key)));
    }
  };

  // -- commands -------------------------------------------------------------------------------
  const target = (uriArg?: unknown, keyArg?: unknown): { uri: vscode.Uri; key: number } | undefined => {
    if (typeof uriArg === 'string' && typeof keyArg === 'number') {
      // A CodeLens drawn for an older version still names its hunk by key, never by line:
      // the hunk is found where it is now, or the click is ignored.
      return { uri: vscode.Uri.parse(uriArg), key: keyArg };
    }
    const editor = vscode.window.activeTextEditor;
    const review = editor && controller.review(editor.document.uri);
    const hunk = review?.hunkAt(editor!.document.offsetAt(editor!.selection.active));
    return hunk ? { uri: editor!.document.uri, key: hunk.key } : undefined;
  };
  const fileOf = (uriArg?: unknown): vscode.Uri | undefined =>
    typeof uriArg === 'string' ? vscode.Uri.parse(uriArg) : uriArg instanceof vscode.Uri ? uriArg : vscode.window.activeTextEditor?.document.uri;
  const gone = (): void => {
    vscode.window.setStatusBarMessage('Agent: that change was already decided', 3000);
  };

  const go = async (direction: 1 | -1): Promise<void> => {
    const all = controller.pending();
    if (all.length === 0) {
      return;
    }
    const editor = vscode.window.activeTextEditor;
    const here = editor ? editor.document.uri.toString() : '';
    const offset = editor ? editor.document.offsetAt(editor.selection.active) : -1;
    const order = (p: { uri: vscode.Uri; hunk: Hunk }): [string, number] => [p.uri.toString(), p.hunk.start];
    const after = (p: { uri: vscode.Uri; hunk: Hunk }): boolean => {
      const [u, s] = order(p);
      return direction > 0 ? u > here || (u === here && s > offset) : u < here || (u === here && s < lineStart(editor, offset));
    };
    const list = direction > 0 ? all : [...all].reverse();
    const next = list.find(after) ?? list[0];
    const review = controller.review(next.uri)!;
    const line = anchorLine(review, next.hunk);
    const shown = await vscode.window.showTextDocument(next.uri, { selection: new vscode.Range(line, 0, line, 0), preview: false });
    shown.revealRange(new vscode.Range(line, 0, line, 0), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  };

  const showDiff = async (uri: vscode.Uri, hunk?: Hunk): Promise<void> => {
    const review = controller.review(uri);
    const options: vscode.TextDocumentShowOptions = { preview: true };
    if (review && hunk) {
      const line = anchorLine(review, hunk);
      options.selection = new vscode.Range(line, 0, line, 0);
    }
    await vscode.commands.executeCommand('vscode.diff', baselineUri(uri), uri, `${name(uri)} (before ↔ agent)`, options);
  };

  const reviewAll = async (): Promise<void> => {
    const resources = [...controller.files.entries()]
      .filter(([, r]) => r.pending > 0)
      .map(([key]) => {
        const uri = vscode.Uri.parse(key);
        return [uri, baselineUri(uri), uri];
      });
    await vscode.commands.executeCommand('vscode.changes', 'Agent changes', resources);
  };

  const showPending = async (): Promise<void> => {
    type Item = vscode.QuickPickItem & { run: () => Promise<unknown> };
    const items: Item[] = [];
    for (const [key, review] of controller.files) {
      if (review.pending > 0) {
        const uri = vscode.Uri.parse(key);
        items.push({
          label: `$(file) ${vscode.workspace.asRelativePath(uri)}`,
          description: `${review.pending} change${review.pending === 1 ? '' : 's'}`,
          run: async () => {
            const line = anchorLine(review, review.hunks[0]);
            await vscode.window.showTextDocument(uri, { selection: new vscode.Range(line, 0, line, 0), preview: false });
          },
        });
      }
    }
    if (items.length === 0) {
      return;
    }
    items.push(
      { label: '', kind: vscode.QuickPickItemKind.Separator, run: async () => undefined },
      { label: '$(check-all) Keep all', run: () => controller.decideAll('keep') },
      { label: '$(discard) Undo all', run: () => controller.decideAll('undo') },
      { label: '$(diff-multiple) Review all in the multi-file diff', run: reviewAll },
    );
    const picked = await vscode.window.showQuickPick(items, { title: `${controller.pendingCount} agent changes to review`, placeHolder: 'A file, or a decision for all' });
    await picked?.run();
  };

  const commands: Array<[string, (...args: unknown[]) => unknown]> = [
    [
      'agentls.review.keepHunk',
      async (u, k) => {
        const t = target(u, k);
        return t && (await controller.keep(t.uri, t.key)) ? true : (gone(), false);
      },
    ],
    [
      'agentls.review.undoHunk',
      async (u, k) => {
        const t = target(u, k);
        return t && (await controller.undo(t.uri, t.key)) ? true : (gone(), false);
      },
    ],
    ['agentls.review.keepFile', async (u) => { const uri = fileOf(u); return uri ? controller.decideFile(uri, 'keep') : 0; }],
    ['agentls.review.undoFile', async (u) => { const uri = fileOf(u); return uri ? controller.decideFile(uri, 'undo') : 0; }],
    ['agentls.review.keepAll', () => controller.decideAll('keep')],
    ['agentls.review.undoAll', () => controller.decideAll('undo')],
    ['agentls.review.next', () => go(1)],
    ['agentls.review.previous', () => go(-1)],
    [
      'agentls.review.diff',
      async (u, k) => {
        const t = target(u, k);
        const uri = t?.uri ?? fileOf(u);
        if (uri) {
          await showDiff(uri, t ? controller.review(uri)?.hunk(t.key) : undefined);
        }
      },
    ],
    ['agentls.review.showPending', showPending],
    ['agentls.review.reviewAll', reviewAll],
  ];

  refresh();
  return [
    { dispose: () => lensesAgain.forEach((timer) => clearTimeout(timer)) },
    added,
    changedByUser,
    removed,
    ruleAbove,
    ruleBelow,
    status,
    lensesChanged,
    baselineChanged,
    vscode.languages.registerCodeLensProvider({ scheme: 'file' }, lenses),
    vscode.workspace.registerTextDocumentContentProvider(BASELINE_SCHEME, baselines),
    controller.onDidChange((uri) => refresh(uri)),
    vscode.window.onDidChangeVisibleTextEditors(drawAll),
    vscode.window.onDidChangeActiveTextEditor(() => refresh()),
    ...commands.map(([id, fn]) => vscode.commands.registerCommand(id, fn)),
  ];
}

function lineStart(editor: vscode.TextEditor | undefined, offset: number): number {
  if (!editor) {
    return offset;
  }
  const position = editor.document.positionAt(offset);
  return editor.document.offsetAt(new vscode.Position(position.line, 0));
}
