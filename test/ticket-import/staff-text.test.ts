import { describe, expect, it } from 'vitest';
import { parseJournal } from '../../functions/ticket-import/sources/servicenow.js';
import {
  adfToMarkdown,
  htmlToText,
  trimReply,
  wikiToMarkdown,
} from '../../functions/ticket-import/staff-text.js';

describe('htmlToText', () => {
  it('turns blocks into lines, list items into "- " lines, and decodes entities', () => {
    expect(
      htmlToText(
        '<div><p>Printer&nbsp;on 3F &amp; 4F</p><ul><li>Reboot</li><li>Re-add &#x3042;</li></ul>' +
          '<script>alert(1)</script><p>Line<br>break</p></div>',
      ),
    ).toBe('Printer on 3F & 4F\n\n- Reboot\n- Re-add あ\n\nLine\nbreak');
  });

  it('drops quoted mail (blockquote, Gmail quote container)', () => {
    expect(
      htmlToText(
        '<p>Done.</p><blockquote>old text</blockquote><div class="gmail_quote">On …</div>',
      ),
    ).toBe('Done.');
  });
});

describe('trimReply', () => {
  it('cuts the quoted original after "On … wrote:" and > lines', () => {
    expect(trimReply('Works now.\n\nOn Mon, Jul 1, 2024 at 12:00 PM A <a@b.c> wrote:\n> old')).toBe(
      'Works now.',
    );
  });

  it('cuts Outlook and Japanese mailer headers', () => {
    expect(trimReply('了解です。\n\n-----Original Message-----\nFrom: x')).toBe('了解です。');
    expect(
      trimReply('開けました。\n\n2024年6月10日(月) 14:50 佐藤 <s@example.jp>:\n> 付与しました'),
    ).toBe('開けました。');
  });

  it('cuts a signature after "-- ", a rule line or a closing line followed by a few short lines', () => {
    expect(trimReply('Restart Outlook.\n\n-- \nHanako\nIT')).toBe('Restart Outlook.');
    expect(trimReply('再起動してください。\n\n==========\n情報システム部\n内線 1234')).toBe(
      '再起動してください。',
    );
    expect(trimReply('Restart Outlook.\n\nBest regards,\nHanako Sato\nIT Service Desk')).toBe(
      'Restart Outlook.',
    );
  });

  it('drops the greeting lines that open a reply, and nothing after them', () => {
    expect(trimReply('Hi Taro,\n\nWe renewed the certificate.')).toBe(
      'We renewed the certificate.',
    );
    expect(trimReply('田中様\nお世話になっております。\n\n証明書を再発行しました。')).toBe(
      '証明書を再発行しました。',
    );
    // A first line that is already the answer stays.
    expect(trimReply('Hi-res printing works again after the driver update.')).toBe(
      'Hi-res printing works again after the driver update.',
    );
    expect(trimReply('Hello world app: reinstalled it.\n\nDone.')).toBe(
      'Hello world app: reinstalled it.\n\nDone.',
    );
  });

  it('keeps a closing phrase followed by real content', () => {
    const text = `Thanks,\n${'this is a long line of the actual answer that continues well past sixty characters.'}`;
    expect(trimReply(text)).toBe(text);
  });
});

describe('adfToMarkdown', () => {
  it('renders paragraphs, marks, lists, code, mentions and links', () => {
    const mentions: string[] = [];
    const markdown = adfToMarkdown(
      {
        type: 'doc',
        version: 1,
        content: [
          {
            type: 'heading',
            attrs: { level: 2 },
            content: [{ type: 'text', text: 'Steps' }],
          },
          {
            type: 'orderedList',
            content: [
              {
                type: 'listItem',
                content: [
                  {
                    type: 'paragraph',
                    content: [
                      { type: 'text', text: 'Open ' },
                      { type: 'text', text: 'Settings', marks: [{ type: 'strong' }] },
                    ],
                  },
                ],
              },
              {
                type: 'listItem',
                content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Sign in' }] }],
              },
            ],
          },
          {
            type: 'paragraph',
            content: [
              { type: 'mention', attrs: { id: 'x', text: '@Taro Yamada' } },
              { type: 'text', text: ' see ' },
              {
                type: 'text',
                text: 'guide',
                marks: [{ type: 'link', attrs: { href: 'https://example.com/g' } }],
              },
            ],
          },
          { type: 'codeBlock', attrs: { language: 'sh' }, content: [{ type: 'text', text: 'ls' }] },
        ],
      },
      mentions,
    );
    expect(markdown).toBe(
      '## Steps\n\n1. Open **Settings**\n2. Sign in\n\n@Taro Yamada see [guide](https://example.com/g)\n\n```sh\nls\n```',
    );
    expect(mentions).toEqual(['Taro Yamada']);
  });
});

describe('wikiToMarkdown', () => {
  it('renders headings, emphasis, monospace, links, lists, code blocks and mentions', () => {
    const mentions: string[] = [];
    expect(
      wikiToMarkdown(
        'h3. Fix\n*Restart* the _client_ and run {{ipconfig /flushdns}}\n* one\n** nested\n# first\n' +
          '[guide|https://example.com]\n{code:bash}\necho *not bold*\n{code}\n[~yamada.taro] done',
        mentions,
      ),
    ).toBe(
      '### Fix\n**Restart** the *client* and run `ipconfig /flushdns`\n- one\n  - nested\n1. first\n' +
        '[guide](https://example.com)\n```bash\necho *not bold*\n```\n@yamada.taro done',
    );
    expect(mentions).toEqual(['yamada.taro']);
  });
});

describe('parseJournal', () => {
  it('splits ServiceNow journal text into entries, oldest first, with authors and kinds', () => {
    const entries = parseJournal(
      '2024-01-09 11:25:10 - 佐藤 花子 (Additional comments)\n再発行しました。\n\n' +
        '2024-01-09 10:40:02 - 佐藤 花子 (Work notes)\n期限切れを確認。\n複数行です。\n\n' +
        '2024-01-09 10:12:33 - 山田 太郎 (Additional comments)\n昨日までは使えていました。\n',
    );
    expect(entries).toEqual([
      {
        at: '2024-01-09 10:12:33',
        author: '山田 太郎',
        kind: 'comments',
        text: '昨日までは使えていました。',
      },
      {
        at: '2024-01-09 10:40:02',
        author: '佐藤 花子',
        kind: 'work_notes',
        text: '期限切れを確認。\n複数行です。',
      },
      {
        at: '2024-01-09 11:25:10',
        author: '佐藤 花子',
        kind: 'comments',
        text: '再発行しました。',
      },
    ]);
  });
});
