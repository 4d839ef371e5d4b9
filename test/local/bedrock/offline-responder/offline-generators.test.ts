import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { answerTool } from '../../../../functions/chat/model-request.js';
import type { HandoffSummary } from '../../../../functions/contract/handoff.js';
import {
  buildHandoffRequest,
  HANDOFF_TOOL,
  handoffTranscript,
} from '../../../../functions/handoff/handoff-summary.js';
import { draftToolFor } from '../../../../functions/knowledge/ticket-draft.js';
import { MAIL_DRAFT_TOOL } from '../../../../functions/mail-draft/refine-mail-draft.js';
import { OFFLINE_GENERATORS } from '../../../../local/bedrock/offline-responder/offline-generators.js';
import { respondOffline } from '../../../../local/bedrock/offline-responder/respond-offline.js';
import type { ConverseWireRequest } from '../../../../local/bedrock/recorded-requests.js';
import { handoffConversation, wireBodyOf } from './model-requests-fixture.js';

const toolInput = (body: ConverseWireRequest) =>
  JSON.parse(respondOffline(body).fragments.join('')) as unknown;

describe('the offline generators, keyed by tool name', () => {
  it('has a generator for every model-backed tool the product forces', () => {
    for (const tool of [answerTool, draftToolFor([]), MAIL_DRAFT_TOOL, HANDOFF_TOOL]) {
      expect(OFFLINE_GENERATORS.has(tool.name), tool.name).toBe(true);
    }
  });

  it('writes in the language the request carries as data, not the language of the inquiry', async () => {
    // Inquiry A is Japanese; staff may ask for the hand-off in English.
    const transcript = handoffTranscript(handoffConversation, 'A');
    const summaryIn = async (language: 'ja' | 'en') =>
      toolInput(
        await wireBodyOf(buildHandoffRequest(transcript, language, 2048)),
      ) as HandoffSummary;
    expect((await summaryIn('en')).open_questions).toEqual([
      'Confirm with the requester that the advised steps solved the problem.',
    ]);
    expect((await summaryIn('ja')).open_questions).toEqual([
      '案内した手順で依頼者の問題が解消したか確認が必要です。',
    ]);
  });

  it('answers a tool with no generator by its input schema, texts from the request data', () => {
    // A feature the responder does not know yet: its forced tool's schema is all it needs.
    const schema = z.object({
      title: z.string().max(12),
      severity: z.enum(['low', 'high']),
      steps: z.array(z.string()).min(2),
      urgent: z.boolean(),
      count: z.number().int().min(1),
      detail: z.object({ note: z.string() }),
      label: z.string().nullable(),
    });
    const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { target: 'draft-7' });
    const body: ConverseWireRequest = {
      system: [{ text: 'Summarize the screenshot.' }],
      messages: [
        {
          role: 'user',
          content: [
            {
              text: '<screenshot_description>\nプリンターの画面にエラー E-42\n</screenshot_description>',
            },
          ],
        },
      ],
      toolConfig: {
        tools: [{ toolSpec: { name: 'submit_screenshot_summary', inputSchema: { json } } }],
        toolChoice: { tool: { name: 'submit_screenshot_summary' } },
      },
    };
    const response = respondOffline(body);
    expect(response.toolName).toBe('submit_screenshot_summary');
    expect(response.stopReason).toBe('tool_use');
    const value = toolInput(body);
    expect(schema.parse(value)).toEqual({
      title: 'プリンターの画面にエラー',
      severity: 'low',
      steps: ['プリンターの画面にエラー E-42', 'プリンターの画面にエラー E-42'],
      urgent: false,
      count: 1,
      detail: { note: 'プリンターの画面にエラー E-42' },
      label: 'プリンターの画面にエラー E-42',
    });
  });
});
