import { describe, expect, it } from 'vitest';
import {
  type PromptNode,
  parsePromptMarkup,
  renderPromptMarkup,
} from '../../../../functions/contract/prompt-markup.js';
import { respondOffline } from '../../../../local/bedrock/offline-responder/respond-offline.js';
import type { ConverseWireRequest } from '../../../../local/bedrock/recorded-requests.js';
import { featureRequests, wireBodyOf } from './model-requests-fixture.js';

/**
 * The offline responder answers from the forced tool and the request's data, never from the
 * instructions (issue 47): every instruction text of every feature's request — the system
 * prompt, the tool's description, the schema's descriptions, any text of a user message outside
 * its elements — is reworded, and the answer must stay the same to the fragment.
 */

type Reword = (prose: string) => string;

const REWORDINGS: Record<string, Reword> = {
  // Same layout and length, no word left as it was ("Write every text field in Japanese" too).
  'every word spelled backwards': (prose) =>
    prose.replace(/\p{L}+/gu, (word) => Array.from(word).reverse().join('')),
  'other instructions altogether': () =>
    'Reworded for this test: answer through the tool, following the data of the request.',
};

/** The request with all its instruction text reworded; the data elements untouched. */
function rewordRequest(body: ConverseWireRequest, reword: Reword): ConverseWireRequest {
  return {
    ...body,
    system: body.system?.map((block) =>
      block.text === undefined ? block : { ...block, text: reword(block.text) },
    ),
    messages: body.messages?.map((message) =>
      message.role !== 'user'
        ? message // the model's own earlier answer: data
        : {
            ...message,
            content: message.content?.map((block) =>
              block.text === undefined
                ? block
                : { ...block, text: rewordOutsideElements(block.text, reword) },
            ),
          },
    ),
    toolConfig: {
      ...body.toolConfig,
      tools: body.toolConfig?.tools?.map((tool) =>
        tool.toolSpec === undefined
          ? tool
          : {
              ...tool,
              toolSpec: {
                ...tool.toolSpec,
                description: reword(tool.toolSpec.description ?? ''),
                inputSchema: { json: rewordDescriptions(tool.toolSpec.inputSchema?.json, reword) },
              },
            },
      ),
    },
  };
}

/**
 * The text a user message has outside its elements, reworded (the prompt builders write none
 * today). A message without elements is not the builders' markup: data as a whole.
 */
function rewordOutsideElements(text: string, reword: Reword): string {
  let nodes: PromptNode[];
  try {
    nodes = parsePromptMarkup(text);
  } catch {
    return text;
  }
  if (nodes.every((node) => typeof node === 'string')) return text;
  return renderPromptMarkup(nodes.map((node) => (typeof node === 'string' ? reword(node) : node)));
}

/** Every `description` of a JSON Schema reworded; names, types and enums kept. */
function rewordDescriptions(schema: unknown, reword: Reword): unknown {
  if (Array.isArray(schema)) return schema.map((item) => rewordDescriptions(item, reword));
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === 'description' && typeof value === 'string'
        ? reword(value)
        : rewordDescriptions(value, reword),
    ]),
  );
}

/** What the responder answers, without the input token count: a longer prompt costs more. */
const answerTo = (body: ConverseWireRequest) => {
  const { inputTokens: _inputTokens, ...answer } = respondOffline(body);
  return answer;
};

describe('the offline responder under reworded instructions', () => {
  const cases = featureRequests();

  it('covers chat, the knowledge draft, the mail draft refinement and the hand-off summary', () => {
    const tools = new Set(cases.map(({ request }) => request.tool.name));
    expect(tools).toEqual(
      new Set([
        'submit_response',
        'submit_ticket_draft',
        'submit_mail_draft',
        'submit_handoff_summary',
      ]),
    );
  });

  for (const [rewording, reword] of Object.entries(REWORDINGS)) {
    it.each(cases)(`answers $name the same with ${rewording}`, async ({ request }) => {
      const body = await wireBodyOf(request);
      const reworded = rewordRequest(body, reword);
      // The rewording reached every instruction: nothing of the system prompt or descriptions is left.
      expect(reworded.system?.[0]?.text).not.toBe(body.system?.[0]?.text);
      expect(reworded.toolConfig?.tools?.[0]?.toolSpec?.description).not.toBe(
        body.toolConfig?.tools?.[0]?.toolSpec?.description,
      );
      expect(JSON.stringify(reworded)).not.toContain('Write every text field');

      const original = answerTo(body);
      const again = answerTo(reworded);
      expect(original.stopReason).toBe('tool_use');
      // The tool input first (what staff see), then the stream to the fragment.
      expect(JSON.parse(again.fragments.join(''))).toEqual(JSON.parse(original.fragments.join('')));
      expect(again).toEqual(original);
    });
  }
});
