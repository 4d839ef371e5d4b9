import { describe, expect, it } from 'vitest';
import { splitUnverifiedReferences } from '../../../web/src/markdown/unverified-references.js';

describe('splitUnverifiedReferences', () => {
  it('cuts out each reference to an unverified ticket, in any written form, and nothing else', () => {
    // INC-777 is a Jira-form key and ｉｎｃ００１２３４５ a ServiceNow number (ADR 0020).
    const text =
      '#1001 は確認済み。チケット４２４２ と INC-777、ticket 4242、ｉｎｃ００１２３４５ は未確認。内線4242';
    const segments = splitUnverifiedReferences(text, ['4242', 'INC-777', 'INC0012345']);
    expect(segments.filter((segment) => segment.unverified).map((segment) => segment.text)).toEqual(
      ['チケット４２４２', 'INC-777', 'ticket 4242', 'ｉｎｃ００１２３４５'],
    );
    expect(segments.map((segment) => segment.text).join('')).toBe(text);
  });

  it('gives the text back as one unmarked run when nothing is unverified', () => {
    expect(splitUnverifiedReferences('#4242 を参照', [])).toEqual([
      { text: '#4242 を参照', unverified: false },
    ]);
    expect(splitUnverifiedReferences('#1001 を参照', ['4242'])).toEqual([
      { text: '#1001 を参照', unverified: false },
    ]);
  });

  it('marks a reference at either end of the text', () => {
    expect(splitUnverifiedReferences('#4242', ['4242'])).toEqual([
      { text: '#4242', unverified: true },
    ]);
    expect(splitUnverifiedReferences('a #4242', ['4242'])).toEqual([
      { text: 'a ', unverified: false },
      { text: '#4242', unverified: true },
    ]);
  });
});
