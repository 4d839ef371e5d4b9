import { splitIntoFragments } from '../../test/support/split-into-fragments.js';

/** An answer-shaped tool input and where its streamed parts sit in the text. */
export interface AnswerPayload {
  text: string;
  /** Index of the opening quote of `general_advice`'s value, and one past its closing quote. */
  adviceStart: number;
  adviceEnd: number;
  /** The decoded advice. */
  advice: string;
  /** For each `results` element, the index of its closing `}`. */
  elementCloses: number[];
}

const PARAGRAPHS = [
  '## 対処方法\nSalesforceにログインできない場合は、まず**パスワードのリセット**を試してください。',
  'If SSO fails with "AADSTS50076", ask the user to re-register MFA in the portal 🔐 and retry.',
  '- VPN接続を確認する（GlobalProtect / AnyConnect）\n- ブラウザのキャッシュを削除する ✅\n',
  'See ticket #1234 — the same error was fixed by resetting the `federation` flag 😀.',
];

/**
 * Builds a tool input of about `bytes` UTF-8 bytes in the model's field order: advice (Japanese
 * and ASCII markdown; emoji written as `\uXXXX` surrogate escapes, as some models do) takes about
 * 60 %, the rest is `results` tickets, then the small fields.
 */
export function makeAnswerPayload(bytes: number): AnswerPayload {
  let advice = '';
  for (let index = 0; Buffer.byteLength(advice) < bytes * 0.6; index++) {
    advice += `${PARAGRAPHS[index % PARAGRAPHS.length]}\n`;
  }
  const adviceJson = JSON.stringify(advice).replace(
    /[\ud800-\udfff]/g,
    (unit) => `\\u${unit.charCodeAt(0).toString(16)}`,
  );
  let text = '{"response_type":"results","general_advice":';
  const adviceStart = text.length;
  text += adviceJson;
  const adviceEnd = text.length;
  text += ',"results":[';
  const elementCloses: number[] = [];
  for (let index = 0; Buffer.byteLength(text) < bytes - 300; index++) {
    if (index > 0) text += ',';
    text += JSON.stringify({
      issue_id: String(1000 + index),
      subject: 'VPNに接続できない (error 809)',
      summary: 'リモートワーク中にVPNへ接続できない。"L2TP" のエラー。',
      resolution: '証明書を再発行し、クライアントを再インストールして解決。\nSee KB-12.',
    });
    elementCloses.push(text.length - 1);
  }
  text += '],"mail_draft":"お疲れ様です。\\nご不便をおかけしております。",';
  text +=
    '"todo_actions":["パスワードをリセットする","MFAを再登録する"],"reasoning":"similar tickets"}';
  return { text, adviceStart, adviceEnd, advice, elementCloses };
}

/**
 * Cuts `text` into fragments of 1–24 UTF-16 units from a fixed seed, so every run is the same.
 * Each fragment is a fresh flat string, as the SDK's event-stream JSON decoding produces — not a
 * V8 slice of one big string, which would make every library pay an indirection per character.
 */
export function seededFragments(text: string, seed = 7): string[] {
  return splitIntoFragments(text, seededSizes(text.length, seed)).map(
    (fragment) => JSON.parse(JSON.stringify(fragment)) as string,
  );
}

/** Sizes of 1–24 from a linear congruential generator, as many as it takes to cover `length`. */
function seededSizes(length: number, seed: number): number[] {
  const sizes: number[] = [];
  let state = seed;
  for (let covered = 0; covered < length; ) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const size = 1 + ((state >>> 16) % 24);
    sizes.push(size);
    covered += size;
  }
  return sizes;
}
