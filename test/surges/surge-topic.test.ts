import { describe, expect, it } from 'vitest';
import { surgeTopicOf } from '../../functions/surges/surge-topic.js';

// The tickets the local index retrieves for the three Outlook phrasings of issue #53: their best
// categories differ (hardware, network, SSO), which must not split the surge.
const retrievedFor = {
  start: [
    { category: 'Hardware', score: 0.99 },
    { category: 'Teams', score: 0.8 },
    { category: 'Teams', score: 0.53 },
  ],
  open: [
    { category: 'Network', score: 0.97 },
    { category: 'Mail', score: 0.77 },
    { category: 'Mail', score: 0.73 },
  ],
  error: [
    { category: 'SSO', score: 0.99 },
    { category: 'Hardware', score: 0.91 },
    { category: 'Teams', score: 0.79 },
  ],
  printer: [
    { category: 'Printer', score: 1 },
    { category: 'Printer', score: 0.8 },
  ],
};

describe('surgeTopicOf', () => {
  it('puts three phrasings of Outlook failing under one topic whatever the tickets say', () => {
    const topics = [
      surgeTopicOf('Outlookが起動しない', retrievedFor.start),
      surgeTopicOf('Outlookが開かない', retrievedFor.open),
      surgeTopicOf('Outlook 起動でエラー', retrievedFor.error),
      surgeTopicOf("Outlook won't start", []),
    ];
    expect(new Set(topics.map((topic) => topic?.topicKey))).toEqual(new Set(['*|outlook']));
    expect(topics[0]?.label).toBe('outlook');
  });

  it('keeps a printer inquiry apart', () => {
    expect(surgeTopicOf('プリンターで印刷できない', retrievedFor.printer)?.topicKey).toBe(
      '*|printer',
    );
  });

  it('matches full-width and half-width writing of the same subject', () => {
    expect(surgeTopicOf('ＯＵＴＬＯＯＫが開かない', [])?.topicKey).toBe('*|outlook');
  });

  it('counts a symptom alone within the category its tickets agree on', () => {
    const hardware = surgeTopicOf('起動しない', [
      { category: 'Hardware', score: 0.6 },
      { category: 'PC', score: 0.9 },
      { category: 'Hardware', score: 0.5 },
    ]);
    expect(hardware?.topicKey).toBe("hardware|won't boot");
    const mail = surgeTopicOf('起動しない', [{ category: 'Mail', score: 0.9 }]);
    expect(mail?.topicKey).not.toBe(hardware?.topicKey);
  });

  it('counts nothing for an inquiry without a key term', () => {
    expect(surgeTopicOf('？？？', retrievedFor.start)).toBeUndefined();
    expect(surgeTopicOf('help please', [])).toBeUndefined();
  });
});
