/**
 * Whether the user's review decisions reached the agent: the decisions sent with
 * `agent/reviewDecision`, followed by what the server says of them
 * (`agent/reviewDelivery`: waiting for a model call, told, or unknown to that server),
 * and what the user is told about them, in their own words. Pure, unit-tested.
 */
import type { ReviewDeliveryParams, ReviewOutcome } from '../protocol';

export type DeliveryState = 'sent' | 'waiting' | 'told' | 'unknown' | 'lost';

export interface SentDecision {
  /** The change as the user knows it: its file and its key in that file's review. */
  file: string;
  key: number;
  outcome: ReviewOutcome;
  ids: string[];
}

interface Tracked extends SentDecision {
  state: DeliveryState;
  sessionId?: string;
}

/** What happened to a batch of decisions, for the user. */
export interface DeliveryNews {
  state: 'waiting' | 'told' | 'lost';
  /** "calc.py: 1 kept, 1 undone" */
  summary: string;
  runId?: string;
  sessionId?: string;
  /** told: exactly what the model was given. */
  note?: string;
  otherSession?: boolean;
  /** lost: why it never reaches the agent. */
  why?: string;
}

/** In this order in a summary. */
const WORDS: Record<ReviewOutcome, string> = { kept: 'kept', changedByUser: 'changed by you', undone: 'undone', pending: 'back to review' };

/** "calc.py: 1 kept, 1 undone; util.py: 1 changed by you" */
export function summarize(decisions: ReadonlyArray<Pick<SentDecision, 'file' | 'outcome'>>): string {
  const files = new Map<string, Map<ReviewOutcome, number>>();
  for (const d of decisions) {
    const counts = files.get(d.file) ?? new Map<ReviewOutcome, number>();
    counts.set(d.outcome, (counts.get(d.outcome) ?? 0) + 1);
    files.set(d.file, counts);
  }
  const order = Object.keys(WORDS) as ReviewOutcome[];
  return [...files.entries()]
    .map(([file, counts]) => `${file}: ${order.filter((o) => counts.has(o)).map((o) => `${counts.get(o)} ${WORDS[o]}`).join(', ')}`)
    .join('; ');
}

export class Deliveries {
  /** The latest decision of each change, by `file#key`. */
  private readonly decisions = new Map<string, Tracked>();
  private readonly byId = new Map<string, string>();

  /** Decisions just sent. A change taken back to review is no decision to follow. */
  sent(decisions: SentDecision[]): void {
    for (const d of decisions) {
      const key = `${d.file}#${d.key}`;
      if (d.outcome === 'pending') {
        this.decisions.delete(key);
      } else {
        this.decisions.set(key, { ...d, state: 'sent' });
      }
      for (const id of d.ids) {
        this.byId.set(id, key);
      }
    }
  }

  /** The server's word on some of them; what to tell the user, if anything. */
  delivered(params: ReviewDeliveryParams): DeliveryNews | undefined {
    const hit = new Set<Tracked>();
    for (const id of params.hunks) {
      const key = this.byId.get(id);
      const tracked = key === undefined ? undefined : this.decisions.get(key);
      if (tracked) {
        hit.add(tracked);
      }
    }
    if (hit.size === 0) {
      return undefined;
    }
    const state: DeliveryState = params.state;
    for (const t of hit) {
      t.state = state;
      t.sessionId = params.sessionId ?? t.sessionId;
    }
    const summary = summarize([...hit]);
    if (state === 'unknown') {
      this.forget(hit);
      return { state: 'lost', summary, why: 'the agent server was restarted since it made those changes' };
    }
    if (state === 'told') {
      this.forget(hit);
      // Without a note the model had heard this state already: nothing to show.
      return params.note ? { state, summary, runId: params.runId, sessionId: params.sessionId, note: params.note, otherSession: params.otherSession } : undefined;
    }
    return { state, summary, runId: params.runId, sessionId: params.sessionId };
  }

  /** The server is gone: what waited in it will never be told. */
  serverGone(): DeliveryNews | undefined {
    const lost = [...this.decisions.values()].filter((t) => t.state === 'waiting');
    this.decisions.clear();
    this.byId.clear();
    return lost.length > 0 ? { state: 'lost', summary: summarize(lost), why: 'the agent server stopped before its next step' } : undefined;
  }

  /** Decisions the server keeps for a model that has not heard them yet. */
  waiting(): Array<SentDecision & { sessionId?: string }> {
    return [...this.decisions.values()].filter((t) => t.state === 'waiting');
  }

  private forget(done: Set<Tracked>): void {
    for (const [key, t] of this.decisions) {
      if (done.has(t)) {
        this.decisions.delete(key);
      }
    }
  }
}
