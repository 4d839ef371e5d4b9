import { describe, expect, it } from 'vitest';
import { mailtoUrl } from '../../../web/src/components/mail-draft.js';
import {
  splitUnverifiedLinks,
  withoutUnverifiedLinks,
} from '../../../web/src/markdown/unverified-links.js';

/** The plain-text side of the link policy: what the page marks never leaves it (ADR 0013). */
describe('splitUnverifiedLinks', () => {
  it('marks listed links, every link to a listed domain, and schemes no page passes on', () => {
    const text =
      'A https://evil.example/a, B https://evil.example/other, C https://support.microsoft.com/x, ' +
      'D javascript:alert(1), E http://support.microsoft.com/y.';
    expect(
      splitUnverifiedLinks(text, ['https://evil.example/a'])
        .filter((segment) => segment.unverified)
        .map((segment) => segment.text),
    ).toEqual([
      'https://evil.example/a',
      'https://evil.example/other',
      'javascript:alert(1)',
      'http://support.microsoft.com/y',
    ]);
  });

  it('keeps every character of the text, in order', () => {
    const text = 'x [a](https://evil.example) y data:text/html,hi z';
    expect(
      splitUnverifiedLinks(text, [])
        .map((segment) => segment.text)
        .join(''),
    ).toBe(text);
  });

  it('marks nothing in text without links', () => {
    expect(splitUnverifiedLinks('Outlook を再起動', [])).toEqual([
      { text: 'Outlook を再起動', unverified: false },
    ]);
  });
});

describe('withoutUnverifiedLinks and the mailto: body', () => {
  it('leaves a marked link out of what is copied and handed to the mail client', () => {
    const draft =
      'パスワードは javascript:alert(1) ではなく https://support.microsoft.com/ja-jp で、' +
      'https://evil.example/reset は使わないでください。';
    const passedOn = withoutUnverifiedLinks(draft, ['https://evil.example/reset']);
    expect(passedOn).toBe(
      'パスワードは ［リンク削除］ ではなく https://support.microsoft.com/ja-jp で、［リンク削除］ は使わないでください。',
    );
    const body = decodeURIComponent(mailtoUrl('Re: x', passedOn)?.split('&body=')[1] ?? '');
    expect(body).toContain('https://support.microsoft.com/ja-jp');
    expect(body).not.toMatch(/evil|javascript:/u);
  });
});
