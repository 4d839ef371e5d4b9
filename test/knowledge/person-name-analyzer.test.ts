import { describe, expect, it } from 'vitest';
import {
  loadPersonNameAnalyzer,
  peopleFromNames,
} from '../../functions/knowledge/person-name-analyzer.js';
import { peopleNamedIn } from '../../functions/knowledge/personal-data-detectors.js';
import { languageOf, scrubPersonalData } from '../../functions/knowledge/personal-data-scrub.js';

/** The scrub as the import and capture call it: phrasing and the analyzer's names. */
async function scrub(text: string) {
  const analyzer = await loadPersonNameAnalyzer();
  return scrubPersonalData(text, {
    language: languageOf(text),
    people: [...peopleNamedIn(text), ...peopleFromNames(analyzer.names(text))],
  }).text;
}

describe('the person-name analyzer', () => {
  it('loads once and is shared', async () => {
    const [first, second] = await Promise.all([loadPersonNameAnalyzer(), loadPersonNameAnalyzer()]);
    expect(first).toBe(second);
    expect(await loadPersonNameAnalyzer()).toBe(first);
  }, 30_000);

  it('finds Japanese names no phrasing marks, by the dictionary’s 人名 tags', async () => {
    const analyzer = await loadPersonNameAnalyzer();
    expect(analyzer.names('後藤が休みのため、代わりに問い合わせます。')).toContain('後藤');
    expect(analyzer.names('昨日大野から聞いた件です。')).toContain('大野');
    expect(analyzer.names('山田太郎のPCが起動しません。')).toContain('山田太郎');
    expect(analyzer.names('ラベルプリンターのキーンという音')).toEqual([]);
    expect(await scrub('高木が担当していたNASの権限を引き継ぎたいです。')).toBe(
      '[氏名]が担当していたNASの権限を引き継ぎたいです。',
    );
  }, 30_000);

  it('finds English names compromise recognises', async () => {
    expect(await scrub('Benjamin Carter and Hannah Mitchell need access to the share.')).toBe(
      '[name] and [name] need access to the share.',
    );
  }, 30_000);

  it('keeps offices, products, error codes and commands', async () => {
    for (const text of [
      '大阪支社の会議室でMicrosoft Teamsの画面共有ができません。',
      '名古屋営業所のルーターが点滅しています。',
      'Active Directory のアカウントがロックされました。',
      'Exchange Online で Start-ManagedFolderAssistant を実行してもアーカイブされません。',
      'Windows Update の後 0x80070005 のエラーが出ます。KB5034441 も失敗します。',
      'Dell の Latitude 5440 のバッテリーが膨らんでいます。',
      'Teams crashes on startup with error caa70004 in the London office.',
    ]) {
      expect(await scrub(text), text).toBe(text);
    }
  }, 30_000);
});
