import type { TicketResult } from '../../../functions/contract/answer.js';

/** A deterministic pseudo-random generator, so every benchmark run streams the same tokens. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) % 4294967296;
    return state / 4294967296;
  };
}

const SECTIONS = [
  '## 確認すること\n\n',
  '1. パスワードの有効期限が切れていないか、**アカウントのロック**状態を管理画面で確認します。\n',
  '2. 多要素認証のデバイスを変更していないかを依頼者に確認します。\n\n',
  '過去の類似チケット（#1003）では、ブラウザーのキャッシュ削除で解決しています。詳しくは[手順書](https://example.com/guide)を参照してください。\n\n',
  '```\nipconfig /flushdns\nnetsh winsock reset\n```\n\n',
  '- VPN 接続中かどうか\n- 社外ネットワークからのアクセスか\n- エラーメッセージの全文\n\n',
  '> 注意: 管理者権限が必要な操作は、サービスデスクがリモートで実施します。\n\n',
];

/** About `bytes` of realistic advice markdown (headings, lists, links, code, quotes). */
export function buildBenchMarkdown(bytes: number): string {
  const encoder = new TextEncoder();
  let text = '';
  for (let i = 0; encoder.encode(text).length < bytes; i += 1) {
    text += SECTIONS[i % SECTIONS.length] ?? '';
  }
  return text;
}

/** Splits text into model-sized fragments (2–24 characters), as `token` events carry them. */
export function splitIntoTokens(text: string, seed = 42): string[] {
  const random = seeded(seed);
  const tokens: string[] = [];
  for (let start = 0; start < text.length; ) {
    const size = 2 + Math.floor(random() * 23);
    tokens.push(text.slice(start, start + size));
    start += size;
  }
  return tokens;
}

export const benchTickets: TicketResult[] = [1003, 1011, 1157].map((id) => ({
  issue_id: String(id),
  subject: `類似チケット ${id}`,
  summary: 'ログインできないという問い合わせ。',
  resolution: 'キャッシュを削除し、パスワードを再設定して解決。',
}));
