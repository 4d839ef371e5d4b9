import { describe, expect, it } from 'vitest';
import { renameEventHandlerAttributes } from '../../../web/src/markdown/rename-event-handler-attributes.js';

describe('renameEventHandlerAttributes', () => {
  it.each([
    ['<img src=x onerror=alert(1)>', '<img src=x data-onerror=alert(1)>'],
    ['<svg onload=alert(1)>', '<svg data-onload=alert(1)>'],
    ['<img/onerror=alert(1)>', '<img/data-onerror=alert(1)>'],
    ['<img src="x"onerror=alert(1)>', '<img src="x"data-onerror=alert(1)>'],
    ["<p title='t' OnClick='alert(1)'>", "<p title='t' data-OnClick='alert(1)'>"],
    ['<details open ontoggle=alert(1)>', '<details open data-ontoggle=alert(1)>'],
    ['<a\nonmouseover\n=\n"x">', '<a\ndata-onmouseover\n=\n"x">'],
    ['<body onload>', '<body data-onload>'],
  ])('renames the handler in %j', (html, renamed) => {
    expect(renameEventHandlerAttributes(html)).toBe(renamed);
  });

  it('leaves text, attribute values and other attributes alone', () => {
    const html =
      '<p>turn on the VPN; one=1</p><a href="https://example.com/?on=1" title="click onclick=x">online</a><ol start="2"><li>on</li></ol>';
    expect(renameEventHandlerAttributes(html)).toBe(html);
  });

  it('follows quoted values across ">" and marked\'s escaped text', () => {
    expect(renameEventHandlerAttributes('<img title="a>b" onerror=x>')).toBe(
      '<img title="a>b" data-onerror=x>',
    );
    expect(renameEventHandlerAttributes('&lt;img onerror=x&gt; a < b onerror=y')).toBe(
      '&lt;img onerror=x&gt; a < b onerror=y',
    );
  });
});
