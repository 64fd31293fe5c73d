/**
 * The `@` attachment picker and the chips of the panel's prompt box, without the DOM: when
 * the picker opens and for what query, the rows it shows for the server's candidates
 * (agent/attachCandidates) plus `#problems` and `#changes`, what choosing a row leaves in
 * the box, the chips' labels, and which pasted or dropped images may be attached. Pure,
 * unit-tested; the webview draws it.
 */
import type { AttachCandidate, Attachment } from '../protocol';

/** Image types the server takes (agent/prompts/attachments.py IMAGE_TYPES), and its size limit. */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Rows asked of the server per kind: enough to choose from, never the whole workspace. */
export const CANDIDATE_LIMIT = 30;

/**
 * What is typed after an `@` that starts a word and runs up to the caret: `start` is where
 * the `@` is. Undefined when the caret is not in such a word (an e-mail address's `@`
 * follows a letter, and a space ends the query).
 */
export function attachQuery(text: string, caret: number): { query: string; start: number } | undefined {
  const head = text.slice(0, caret);
  const match = /(^|\s)@([^\s@]*)$/.exec(head);
  if (!match) {
    return undefined;
  }
  return { query: match[2], start: head.length - match[2].length - 1 };
}

/** One row of the picker and what choosing it attaches. */
export interface AttachOption {
  /** Unique among the rows (the DOM id and the chip's key derive from it). */
  key: string;
  label: string;
  detail: string;
  attachment: Attachment;
}

const KEYWORDS: AttachOption[] = [
  { key: 'problems', label: '#problems', detail: 'The current errors and warnings', attachment: { kind: 'problems' } },
  { key: 'changes', label: '#changes', detail: 'The uncommitted changes (git diff)', attachment: { kind: 'changes' } },
];

/** Whether each character of `query` appears in `name`, in order (case ignored). */
function inOrder(query: string, name: string): boolean {
  let at = 0;
  const lower = name.toLowerCase();
  for (const char of query.toLowerCase()) {
    at = lower.indexOf(char, at);
    if (at < 0) {
      return false;
    }
    at += 1;
  }
  return true;
}

/**
 * The rows for `query`: `#problems` and `#changes` when they match it (a leading `#` is
 * optional), then the server's candidates in its order (files, then symbols). The server
 * already matched and ranked them; this only turns them into rows.
 */
export function attachOptions(query: string, candidates: readonly AttachCandidate[]): AttachOption[] {
  const bare = query.replace(/^#/, '');
  const keywords = KEYWORDS.filter((option) => inOrder(bare, option.key));
  const rows = candidates.map((candidate): AttachOption => {
    if (candidate.kind === 'symbol') {
      const name = candidate.name ?? '';
      return {
        key: `symbol:${candidate.path}:${candidate.line ?? 0}:${name}`,
        label: name,
        detail: `${candidate.symbolKind ?? 'symbol'} · ${candidate.path}:${candidate.line ?? ''}`,
        attachment: { kind: 'symbol', name },
      };
    }
    // The path tells apart files of the same name; a file at the root needs no second name.
    const detail = candidate.path.includes('/') ? candidate.path : 'file';
    return { key: `file:${candidate.path}`, label: baseName(candidate.path), detail, attachment: { kind: 'file', path: candidate.path } };
  });
  return query.startsWith('#') ? keywords : [...keywords, ...rows];
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The prompt after choosing a row: the `@query` typed is taken out (the chip stands for it). */
export function removeQuery(text: string, start: number, caret: number): { text: string; caret: number } {
  let end = caret;
  while (end < text.length && !/\s/.test(text[end])) {
    end += 1;
  }
  return { text: text.slice(0, start) + text.slice(end), caret: start };
}

/** How a chip names an attachment. */
export function chipLabel(attachment: Attachment): string {
  switch (attachment.kind) {
    case 'file': {
      const lines = attachment.startLine ? `:${attachment.startLine}${attachment.endLine && attachment.endLine !== attachment.startLine ? `-${attachment.endLine}` : ''}` : '';
      return `${attachment.path ?? ''}${lines}`;
    }
    case 'symbol':
      return `@${attachment.name ?? ''}`;
    case 'problems':
      return attachment.path ? `#problems ${attachment.path}` : '#problems';
    case 'changes':
      return '#changes';
    case 'image':
      return attachment.path || 'image';
  }
}

/** What makes two attachments the same (the image's bytes for images). */
export function attachmentKey(attachment: Attachment): string {
  if (attachment.kind === 'image') {
    return `image:${attachment.data?.length ?? 0}:${attachment.data?.slice(0, 64) ?? ''}:${attachment.path ?? ''}`;
  }
  return `${attachment.kind}:${attachment.path ?? ''}:${attachment.name ?? ''}:${attachment.startLine ?? ''}-${attachment.endLine ?? ''}`;
}

/** `list` with `attachment` at its end, unless the same one is already there. */
export function addAttachment(list: readonly Attachment[], attachment: Attachment): Attachment[] {
  const key = attachmentKey(attachment);
  return list.some((a) => attachmentKey(a) === key) ? [...list] : [...list, attachment];
}

/** `list` without its `index`-th attachment. */
export function removeAttachment(list: readonly Attachment[], index: number): Attachment[] {
  return list.filter((_, i) => i !== index);
}

/**
 * A pasted or dropped file as an image attachment, or why it cannot be one (the same
 * limits the server checks, said before anything is sent).
 */
export function imageAttachment(name: string, mimeType: string, size: number, base64: string): Attachment | { error: string } {
  const shown = name || 'pasted image';
  if (!(IMAGE_TYPES as readonly string[]).includes(mimeType)) {
    return { error: `${shown}: images of type ${mimeType || 'unknown'} cannot be attached; use PNG, JPEG, GIF or WebP` };
  }
  if (size > MAX_IMAGE_BYTES) {
    return { error: `${shown}: the image is ${Math.round(size / 1024)} KB, more than 5 MB` };
  }
  return { kind: 'image', path: shown, data: base64, mimeType };
}
