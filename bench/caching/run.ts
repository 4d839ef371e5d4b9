/**
 * Prompt-caching benchmark (issue 12, ADR 0009): the same conversations through the real handler
 * on the local stack with `PROMPT_CACHING=auto` and `off`, side by side — a six-turn inquiry
 * (five clarifications, then results) followed by a new inquiry in the same conversation — and
 * the input-token cost of each turn at Claude Sonnet 4.5 prices, from the usage stored with every
 * answer (`turns[].usage`). Two kinds of first message: typed, and with a pasted error log.
 *
 * Token counts come from the local Bedrock endpoint's estimate and its model of Bedrock's cache
 * accounting (local/bedrock/prompt-cache.ts), not from Claude's tokenizer; the ratio is what to
 * read. Time to first token is not measured: the local endpoint models no compute time, so a
 * cache read is no faster here — compare TTFT on real Bedrock (`turns[].usage.timeToFirstTokenMs`
 * beside the cache counts). Prints figures; never fails. `npx tsx bench/caching/run.ts`
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type { TurnUsage } from '../../functions/contract/conversations.js';
import { estimateInputCostUsd } from '../../functions/observability/model-prices.js';
import { startDynamoDbLocal } from '../../local/dynamodb-local.js';
import { type LocalStack, startLocalStack } from '../../local/start-local-stack.js';
import { splitIntoFragments } from '../../test/support/split-into-fragments.js';

const MODEL_ID = 'global.anthropic.claude-sonnet-4-5-20250929-v1:0';

const clarification = (question: string, options: readonly string[]) => ({
  response_type: 'clarification',
  general_advice: `状況を正確に把握するため、${question}を確認させてください。`,
  question,
  options,
});
const results = (subject: string) => ({
  response_type: 'results',
  general_advice: `${subject}について、過去の類似チケットでは次の手順で解決しています。\n\n1. 端末を再起動し、最新のクライアントに更新してください。\n2. 証明書の有効期限を確認し、期限切れであれば再発行を依頼してください。\n3. それでも解決しない場合は、ネットワーク担当にログを添えてエスカレーションしてください。`,
  mail_draft: `お問い合わせありがとうございます。${subject}の件、以下の手順をお試しください。端末の再起動、クライアントの更新、証明書の確認をお願いいたします。解決しない場合はご連絡ください。`,
  todo_actions: [
    'クライアントのバージョンを確認',
    '証明書の有効期限を確認',
    '必要ならエスカレーション',
  ],
});

interface Turn {
  readonly message: string;
  readonly answer: object;
  readonly inquiry?: 'new';
}

const FOLLOW_UPS: readonly Turn[] = [
  { message: '社外から', answer: clarification('どの端末ですか', ['会社貸与PC', '私物PC']) },
  { message: '会社貸与PC', answer: clarification('OSは何ですか', ['Windows 11', 'macOS']) },
  {
    message: 'Windows 11',
    answer: clarification('エラー番号は表示されていますか', ['809', '691', 'なし']),
  },
  { message: '809', answer: clarification('いつから発生していますか', ['今日から', '先週から']) },
  { message: '今日から', answer: results('VPN接続エラー809') },
  {
    message: 'Teamsの会議で音が出ない',
    answer: results('Teamsの音声トラブル'),
    inquiry: 'new',
  },
];
const FIRST_ANSWER = clarification('社内と社外のどちらから接続していますか', [
  '社内から',
  '社外から',
]);

const scenarios = [
  { name: 'typed inquiry', first: 'VPNにつながらない。朝から何度やっても接続に失敗する。' },
  {
    name: 'inquiry with a pasted error log',
    first: `VPNにつながらない。ログを貼ります:\n${Array.from(
      { length: 24 },
      (_, index) =>
        `2026-11-30 09:${String(index).padStart(2, '0')}:12 RasClient: CoId={4F2A} The user dialed a connection named VPN which has failed. The error code returned on failure is 809.`,
    ).join('\n')}`,
  },
] as const;

/** One conversation through the stack; the usage stored with each answer, in order. */
async function runConversation(stack: LocalStack, first: string): Promise<TurnUsage[]> {
  const bedrock = stack.bedrock;
  if (!bedrock) throw new Error('expected the local Bedrock endpoint');
  const user = `bench-${randomUUID().slice(0, 8)}`;
  const post = async (body: object) => {
    const response = await fetch(new URL('/api/chat', stack.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-dev-user': user },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const meta = /event: meta\ndata: (.*)\n/.exec(text)?.[1];
    if (!meta || !text.includes('event: result'))
      throw new Error(`chat failed: ${text.slice(-300)}`);
    return JSON.parse(meta) as { conversationId: string };
  };
  const script = (answer: object) =>
    bedrock.enqueueScript({
      kind: 'stream',
      fragments: splitIntoFragments(JSON.stringify(answer), [16]),
      delayMs: 0,
    });
  script(FIRST_ANSWER);
  const { conversationId } = await post({ message: first });
  for (const turn of FOLLOW_UPS) {
    script(turn.answer);
    await post({
      conversationId,
      message: turn.message,
      ...(turn.inquiry ? { inquiry: 'new' } : {}),
    });
  }
  const stored = await fetch(new URL(`/api/conversations/${conversationId}`, stack.url), {
    headers: { 'x-dev-user': user },
  });
  const { turns } = (await stored.json()) as {
    turns: { role: string; usage?: TurnUsage }[];
  };
  return turns.flatMap((turn) => (turn.role === 'assistant' && turn.usage ? [turn.usage] : []));
}

const usd = (value: number | undefined) => (value === undefined ? 'n/a' : `$${value.toFixed(5)}`);
const inputCost = (usage: TurnUsage) => estimateInputCostUsd(MODEL_ID, usage) ?? Number.NaN;
const totalInput = (usage: TurnUsage) =>
  usage.inputTokens + (usage.cacheReadInputTokens ?? 0) + (usage.cacheWriteInputTokens ?? 0);

export async function main(): Promise<void> {
  console.log(
    `# Prompt caching: input-token cost per turn, caching on vs off (${MODEL_ID} prices)\n`,
  );
  const dynamo = await startDynamoDbLocal({ port: 0 });
  const stacks: LocalStack[] = [];
  try {
    const start = async (promptCaching: 'auto' | 'off') => {
      const stack = await startLocalStack({
        port: 0,
        responderPacing: { minMs: 0, maxMs: 0 },
        tablePrefix: `bench-${promptCaching}-`,
        environment: { DYNAMODB_ENDPOINT: dynamo.endpoint, MODEL_ID },
        functionEnvironment: {
          PROMPT_CACHING: promptCaching,
          LOG_LEVEL: 'SILENT',
          METRICS: 'false',
          DAILY_TOKEN_BUDGET: '0',
        },
        log: () => undefined,
      });
      stacks.push(stack);
      return stack;
    };
    const on = await start('auto');
    const off = await start('off');
    for (const scenario of scenarios) {
      const withCache = await runConversation(on, scenario.first);
      const without = await runConversation(off, scenario.first);
      console.log(`## ${scenario.name} (first message ${scenario.first.length} characters)\n`);
      console.log(
        '| turn | input tokens (off) | uncached / cache write / cache read (on) | input cost off | input cost on | on ÷ off |',
      );
      console.log('|---|---|---|---|---|---|');
      withCache.forEach((usage, index) => {
        const peer = without[index];
        if (!peer) return;
        const label =
          index === withCache.length - 1 ? `${index + 1} (new inquiry)` : `${index + 1}`;
        const same = totalInput(usage) === totalInput(peer) ? '' : ' ≠';
        console.log(
          `| ${label} | ${peer.inputTokens}${same} | ${usage.inputTokens} / ${usage.cacheWriteInputTokens ?? 0} / ${usage.cacheReadInputTokens ?? 0} | ${usd(inputCost(peer))} | ${usd(inputCost(usage))} | ${(inputCost(usage) / inputCost(peer)).toFixed(2)} |`,
        );
      });
      const sum = (usages: TurnUsage[]) =>
        usages.reduce((total, usage) => total + inputCost(usage), 0);
      const inquiryOnly = (usages: TurnUsage[]) => usages.slice(0, 6);
      console.log(
        `\n  whole conversation: ${usd(sum(withCache))} on vs ${usd(sum(without))} off → ${(sum(withCache) / sum(without)).toFixed(3)}×; six-turn inquiry alone ${(sum(inquiryOnly(withCache)) / sum(inquiryOnly(without))).toFixed(3)}×\n`,
      );
    }
    console.log(
      '  Time to first token: not measured here — the local endpoint models no compute time, so a cache read is no faster. On real Bedrock compare turns[].usage.timeToFirstTokenMs of turns with and without cacheReadInputTokens.',
    );
  } finally {
    for (const stack of stacks) await stack.stop().catch(() => undefined);
    await dynamo.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
