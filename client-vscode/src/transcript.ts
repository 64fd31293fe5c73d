/**
 * Renders a run's notifications as plain text for the "Agent" output channel: streamed
 * text in `seq` order, one line per tool call as it starts and ends, the plan as a
 * checklist. Pure (it writes to a `Sink`), unit-tested.
 */
import type { InstructionsParams, NoticeParams, PlanParams, RunResult, StepParams, StreamParams, SubagentParams } from './protocol';
import type { DeliveryNews } from './review/delivery';
import { toolTarget, truncate } from './runView';

export interface Sink {
  append(text: string): void;
}

interface RunTrack {
  nextSeq: number | undefined;
  pending: Map<number, StreamParams>;
  streamed: boolean;
}

const PLAN_MARKS: Record<string, string> = {
  done: '[x]',
  completed: '[x]',
  complete: '[x]',
  success: '[x]',
  in_progress: '[~]',
  active: '[~]',
  running: '[~]',
  failed: '[!]',
  skipped: '[-]',
  cancelled: '[-]',
};

export class Transcript {
  private readonly runs = new Map<string, RunTrack>();
  private atLineStart = true;

  constructor(private readonly sink: Sink) {}

  private write(text: string): void {
    if (text === '') {
      return;
    }
    this.sink.append(text);
    this.atLineStart = text.endsWith('\n');
  }

  private line(text: string): void {
    if (!this.atLineStart) {
      this.write('\n');
    }
    this.write(`${text}\n`);
  }

  private track(runId: string): RunTrack {
    let run = this.runs.get(runId);
    if (!run) {
      run = { nextSeq: undefined, pending: new Map(), streamed: false };
      this.runs.set(runId, run);
    }
    return run;
  }

  /** `folder`: the name of the run's folder, given when the workspace has several. */
  begin(runId: string, prompt: string, agent: string, folder?: string): void {
    this.track(runId);
    this.line('');
    this.line(`━━ Agent run ${runId} (${agent}${folder ? `, in ${folder}` : ''}) ━━`);
    this.line(`> ${truncate(prompt, 200)}`);
  }

  stream(params: StreamParams): void {
    const run = this.track(params.runId);
    if (run.nextSeq === undefined) {
      run.nextSeq = params.seq;
    }
    if (params.seq < run.nextSeq || run.pending.has(params.seq)) {
      return; // a duplicate
    }
    run.pending.set(params.seq, params);
    this.drain(run, false);
  }

  /** Write what is buffered in order; with `force`, also past gaps in `seq`. */
  private drain(run: RunTrack, force: boolean): void {
    while (run.pending.size > 0 && run.nextSeq !== undefined) {
      let item = run.pending.get(run.nextSeq);
      if (item === undefined) {
        if (!force) {
          return;
        }
        run.nextSeq = Math.min(...run.pending.keys());
        item = run.pending.get(run.nextSeq);
      }
      run.pending.delete(run.nextSeq);
      run.nextSeq += 1;
      if (item?.restart) {
        // The output channel cannot take text back: say the text above is void instead.
        const why = item.reason ? ` (${truncate(item.reason, 160)})` : '';
        this.line(`… the model's stream was cut${why}; the text above is void and the answer restarts`);
        continue;
      }
      run.streamed = true;
      this.write(item?.text ?? '');
    }
  }

  step(params: StepParams): void {
    const run = this.track(params.runId);
    this.drain(run, true);
    if (params.parentCallId) {
      // A subagent's call, indented under the delegate line: one line as it ends.
      if (params.phase === 'tool_end') {
        const target = toolTarget(params.args, true);
        const mark = params.success === false ? '✗' : '✓';
        const summary = params.summary ? ` ${truncate(params.summary, 160)}` : '';
        this.line(`    ${params.agent ?? 'subagent'} › ${params.tool}${target ? ` ${target}` : ''} ${mark}${summary}`);
      }
      return;
    }
    const stepNo = params.maxSteps ? `${params.step}/${params.maxSteps}` : `${params.step}`;
    if (params.phase === 'tool_start') {
      const target = toolTarget(params.args, true);
      this.line(`▶ step ${stepNo} ${params.tool}${target ? ` ${target}` : ''}`);
    } else {
      const mark = params.success === false ? '✗' : '✓';
      const summary = params.summary ? ` ${truncate(params.summary, 200)}` : '';
      this.line(`  ${mark} ${params.tool}${summary}`);
    }
  }

  /** A subagent starts (its task and model) or ends (status, steps, tokens). */
  subagent(params: SubagentParams): void {
    this.drain(this.track(params.runId), true);
    if (params.phase === 'start') {
      const model = params.model ? ` (${params.model})` : '';
      const how = params.background ? ' in the background' : '';
      this.line(`  ↳ ${params.agent}${model} started${how}: ${truncate(params.task ?? '', 200)}`);
      return;
    }
    const mark = params.status === 'success' ? '✓' : params.status === 'partial' ? '⚠' : '✗';
    const steps = params.steps !== undefined ? ` · ${params.steps} step${params.steps === 1 ? '' : 's'}` : '';
    const tokens = params.usage?.total_tokens ? ` · ${params.usage.total_tokens} tokens` : '';
    this.line(`  ${mark} ${params.agent} ${params.status ?? 'ended'}${steps}${tokens}`);
  }

  plan(params: PlanParams): void {
    this.drain(this.track(params.runId), true);
    this.line(params.goal ? `Plan: ${params.goal}` : 'Plan:');
    for (const step of params.steps) {
      this.line(`  ${PLAN_MARKS[step.status] ?? '[ ]'} ${step.text}`);
    }
  }

  instructions(params: InstructionsParams): void {
    if (params.files.length === 0) {
      return;
    }
    this.drain(this.track(params.runId), true);
    this.line(`${params.joined ? 'Instructions joined' : 'Instructions'}: ${params.files.join(', ')}`);
  }

  notice(params: NoticeParams): void {
    this.drain(this.track(params.runId), true);
    this.line(`${params.level === 'info' ? 'ℹ' : '⚠'} ${params.message}`);
  }

  /** What became of the user's review decisions, in their words. */
  review(news: DeliveryNews): void {
    if (news.runId) {
      this.drain(this.track(news.runId), true);
    }
    if (news.state === 'told') {
      const where = news.otherSession ? ' (in another conversation: its own is told when you continue it)' : '';
      this.line(`◆ Told the agent your review${news.runId ? ` (run ${news.runId})` : ''}${where}: ${news.summary}`);
    } else if (news.state === 'waiting') {
      const when = news.runId ? 'before its next step' : 'when you next talk to it';
      this.line(`◆ Your review waits for the agent (told ${when}): ${news.summary}`);
    } else {
      this.line(`◆ Not told to the agent (${news.why ?? 'lost'}): ${news.summary}`);
    }
  }

  status(runId: string, state: string, detail?: string, model?: string): void {
    if (model) {
      // The model that answers the steps starting now (mixed mode: the planner's, then the builder's).
      this.drain(this.track(runId), true);
      this.line(`Model: ${model}`);
    }
    if (state === 'awaiting_human' || detail) {
      this.drain(this.track(runId), true);
      this.line(`… ${state.replace(/_/g, ' ')}${detail ? `: ${detail}` : ''}`);
    }
  }

  end(runId: string, result: RunResult | undefined, error?: string, cancelled = false): void {
    const run = this.track(runId);
    this.drain(run, true);
    if (result) {
      if (!run.streamed && result.output) {
        this.line(result.output.trimEnd());
      }
      const facts: string[] = [];
      if (typeof result.steps === 'number') {
        facts.push(`${result.steps} step${result.steps === 1 ? '' : 's'}`);
      }
      if (typeof result.duration_seconds === 'number') {
        facts.push(`${result.duration_seconds.toFixed(1)} s`);
      }
      if (result.usage?.total_tokens) {
        facts.push(`${result.usage.total_tokens} tokens`);
      }
      const status = cancelled && result.status !== 'success' ? `${result.status} (cancelled)` : result.status;
      this.line(`━━ ${status}${facts.length ? ` · ${facts.join(' · ')}` : ''} ━━`);
    } else {
      this.line(`━━ ${cancelled ? 'cancelled' : 'failed'}${error ? `: ${truncate(error, 300)}` : ''} ━━`);
    }
    this.runs.delete(runId);
  }
}
