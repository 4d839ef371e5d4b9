import type { CheckResult } from '../integ-report.js';
import { chatProblem, type SentChat, type SuiteSession } from '../suite-session.js';

/**
 * Does the answer stream through the real path? Time to first token and first ticket, how many
 * network reads carried the advice (one burst means something between the function and the
 * client holds writes back), and whether heartbeats reach the client over a span longer than
 * CloudFront's origin read timeout.
 */

export type CheckOutcome = Omit<CheckResult, 'id' | 'title'>;

/** A read carrying more than this share of the advice makes the stream a burst. */
const BURST_SHARE = 0.9;

export function firstTokenCheck(sent: SentChat): CheckOutcome {
  const { chat } = sent;
  const problem = chatProblem(sent);
  const figures = {
    status: chat.status,
    firstByteMs: chat.reads[0]?.atMs ?? null,
    firstTokenMs: chat.firstTokenMs ?? null,
    firstTicketMs: chat.firstTicketMs ?? null,
    totalMs: chat.totalMs,
    responseType: sent.answer.result?.response_type ?? null,
  };
  const details = [`events: ${summarizeEventNames(chat.events.map((event) => event.event))}`];
  if (problem) return { status: 'fail', summary: problem, figures, details };
  if (chat.firstTokenMs === undefined) {
    return { status: 'fail', summary: 'no token event arrived', figures, details };
  }
  if (chat.firstTicketMs === undefined && sent.answer.result?.response_type === 'results') {
    return {
      status: 'fail',
      summary: 'a results answer without any ticket card',
      figures,
      details,
    };
  }
  return {
    status: 'pass',
    summary: `first token after ${chat.firstTokenMs} ms, first ticket after ${chat.firstTicketMs ?? '—'} ms, answer complete after ${chat.totalMs} ms`,
    figures,
    details,
  };
}

export function tokenSpreadCheck(sent: SentChat): CheckOutcome {
  const { chat } = sent;
  const tokenReads = chat.reads.filter((read) => read.adviceChars > 0);
  const adviceChars = tokenReads.reduce((sum, read) => sum + read.adviceChars, 0);
  const largest = Math.max(0, ...tokenReads.map((read) => read.adviceChars));
  const spreadMs = (tokenReads.at(-1)?.atMs ?? 0) - (tokenReads[0]?.atMs ?? 0);
  const figures = {
    tokenEvents: chat.events.filter((event) => event.event === 'token').length,
    adviceChars,
    readsCarryingAdvice: tokenReads.length,
    spreadMs,
    largestReadShare: adviceChars === 0 ? null : Number((largest / adviceChars).toFixed(3)),
    readsInAll: chat.reads.length,
    paddingComments: chat.reads.reduce((sum, read) => sum + read.paddings, 0),
  };
  const details = [
    `advice arrival (ms from request → characters): ${tokenReads
      .slice(0, 40)
      .map((read) => `${read.atMs}→${read.adviceChars}`)
      .join(', ')}${tokenReads.length > 40 ? ', …' : ''}`,
  ];
  const problem = chatProblem(sent);
  if (problem) return { status: 'fail', summary: problem, figures, details };
  if (tokenReads.length < 2 || largest / adviceChars > BURST_SHARE) {
    return {
      status: 'fail',
      summary: `the advice arrived as one burst (${tokenReads.length} read(s), the largest carried ${Math.round((100 * largest) / Math.max(1, adviceChars))}%): writes are held back on the way — try STREAM_PADDING (docs/deploy.md)`,
      figures,
      details,
    };
  }
  return {
    status: 'pass',
    summary: `${adviceChars} advice characters over ${tokenReads.length} network reads spread across ${spreadMs} ms`,
    figures,
    details,
  };
}

export async function heartbeatCheck(session: SuiteSession): Promise<CheckOutcome> {
  const { target } = session;
  const { longAnswer, heartbeatMs } = target;
  longAnswer.prepare?.();
  const sent = await session.send('long answer', { message: longAnswer.message });
  const { chat } = sent;
  const beats = chat.heartbeatsAtMs;
  const gaps = beats.slice(1).map((at, index) => at - (beats[index] ?? at));
  const readGaps = chat.reads.map((read, index) => read.atMs - (chat.reads[index - 1]?.atMs ?? 0));
  const spanMs = beats.length > 1 ? (beats.at(-1) ?? 0) - (beats[0] ?? 0) : 0;
  const maxHeartbeatGapMs = Math.max(0, ...gaps);
  const figures = {
    heartbeatMs,
    heartbeatsReceived: beats.length,
    heartbeatSpanMs: spanMs,
    requiredSpanMs: longAnswer.minSpanMs,
    maxHeartbeatGapMs,
    maxSilenceOnWireMs: Math.max(0, ...readGaps),
    answerMs: chat.totalMs,
    answerStatus: sent.answer.result?.status ?? null,
  };
  const details = [
    `how the answer is made long: ${longAnswer.how}`,
    `heartbeats arrived at (ms): ${beats.join(', ') || 'none'}`,
  ];
  // A long answer may run into its output-token limit: `truncated` still proves the stream survived.
  const problem = sent.answer.result?.status === 'truncated' ? undefined : chatProblem(sent);
  if (problem) {
    return {
      status: 'fail',
      summary: `the long answer did not survive: ${problem}`,
      figures,
      details,
    };
  }
  if (spanMs < longAnswer.minSpanMs) {
    return {
      status: 'fail',
      summary: `heartbeats seen over ${spanMs} ms only (${beats.length} of them), ${longAnswer.minSpanMs} ms needed: the answer took ${chat.totalMs} ms${beats.length < 2 ? '' : ' — ask for a longer one (INTEG_LONG_MESSAGE)'}`,
      figures,
      details,
    };
  }
  // Each heartbeat is written every heartbeatMs: arriving much later means it was held back.
  if (maxHeartbeatGapMs > 2 * heartbeatMs) {
    return {
      status: 'fail',
      summary: `heartbeats were held back on the way: ${maxHeartbeatGapMs} ms between two of them, written ${heartbeatMs} ms apart — try STREAM_PADDING=after-pause (docs/deploy.md)`,
      figures,
      details,
    };
  }
  return {
    status: 'pass',
    summary: `${beats.length} heartbeats reached the client over ${spanMs} ms (≥ ${longAnswer.minSpanMs}), at most ${maxHeartbeatGapMs} ms apart; the answer completed after ${chat.totalMs} ms`,
    figures,
    details,
  };
}

/** `meta progress×2 token×41 ticket×3 result`: runs of one name folded. */
function summarizeEventNames(names: readonly string[]): string {
  const runs: { name: string; count: number }[] = [];
  for (const name of names) {
    const last = runs.at(-1);
    if (last?.name === name) last.count++;
    else runs.push({ name, count: 1 });
  }
  return runs.map(({ name, count }) => (count > 1 ? `${name}×${count}` : name)).join(' ');
}
