import { describe, expect, it } from 'vitest';
import { namesInContext } from '../../functions/knowledge/person-names-in-context.js';
import { peopleNamedIn } from '../../functions/knowledge/personal-data-detectors.js';
import { languageOf, scrubPersonalData } from '../../functions/knowledge/personal-data-scrub.js';

/** The scrub with the people the text names, as the import and capture call it. */
function scrub(text: string) {
  return scrubPersonalData(text, { language: languageOf(text), people: peopleNamedIn(text) }).text;
}

describe('Japanese names marked by business phrasing', () => {
  it('removes the issue’s self-introductions and signature', () => {
    expect(scrub('経理部の山田太郎です（内線 1234）。3階のプリンターで印刷できません。')).toBe(
      '経理部の[氏名]です（内線 1234）。3階のプリンターで印刷できません。',
    );
    expect(scrub('総務の田中です。Outlookが開きません。')).toBe(
      '総務の[氏名]です。Outlookが開きません。',
    );
    expect(scrub('人事課 鈴木花子と申します。')).toBe('人事課 [氏名]と申します。');
    expect(scrub('VPNに接続できません。\n--\n高橋 一郎\n情報システム部')).toBe(
      'VPNに接続できません。\n--\n[氏名]\n情報システム部',
    );
  });

  it('finds people in charge, names after a role, with a department, and after a closing', () => {
    expect(namesInContext('アカウントがロックされました。担当者：小林')).toEqual(['小林']);
    expect(namesInContext('担当は加藤です。')).toEqual(['加藤']);
    expect(namesInContext('久保 大輔（営業部）のPCが起動しません。')).toEqual(['久保 大輔']);
    expect(namesInContext('折り返しお願いします。井上')).toEqual(['井上']);
    expect(namesInContext('システム管理者の平野です。')).toEqual(['平野']);
  });

  it('removes a name everywhere once it is found, also without its phrasing', () => {
    expect(scrub('経理部の山田太郎です。山田太郎のPCが起動しません。')).toBe(
      '経理部の[氏名]です。[氏名]のPCが起動しません。',
    );
  });

  it('keeps departments, offices and ordinary words', () => {
    for (const text of [
      '担当部署は情報システム部です。',
      '担当者は不明です。',
      'システム部の不具合です。',
      '大阪支社の会議室でTeamsが使えません。',
      '以上、よろしくお願いします。',
      'お疲れ様です。至急です。',
      '部長の操作が必要なため、リモートで作業しました。',
      '# アカウント停止（物流部）',
      '営業企画です。取引先の一覧が開けません。',
    ]) {
      expect(namesInContext(text), text).toEqual([]);
    }
  });

  it('keeps an office named like a person (中野支店) while the person goes', () => {
    expect(scrub('中野さんのアカウントを中野支店のグループに追加してください。')).toBe(
      '[氏名]さんのアカウントを中野支店のグループに追加してください。',
    );
  });

  it('finds a surname that ends like an organisation (阿部さん) and a spaced full name', () => {
    expect(scrub('阿部さん、Excelが止まります。')).toBe('[氏名]さん、Excelが止まります。');
    expect(scrub('業務委託の石川 翔さんにVPNを')).toBe('業務委託の[氏名]さんにVPNを');
  });
});

describe('English names marked by greetings, sign-offs and references', () => {
  it('removes the issue’s examples', () => {
    expect(scrub("Hi, this is John Smith from Finance. Excel won't open.")).toBe(
      "Hi, this is [name] from Finance. Excel won't open.",
    );
    expect(scrub('Please help.\nRegards,\nMaria Garcia')).toBe('Please help.\nRegards,\n[name]');
    expect(scrub("Per Robert Johnson's request, reset the MFA.")).toBe(
      "Per [name]'s request, reset the MFA.",
    );
  });

  it('finds names after greetings, references, in cc lists and opening a sentence', () => {
    expect(namesInContext('Hello Susan, I reassigned your ticket.')).toEqual(['Susan']);
    expect(namesInContext('Approved by Laura Wilson.')).toEqual(['Laura Wilson']);
    expect(namesInContext('cc: Matthew Jackson, Karen Lewis')).toEqual([
      'Matthew Jackson',
      'Karen Lewis',
    ]);
    expect(namesInContext('Anthony Harris reported that sync is paused.')).toEqual([
      'Anthony Harris',
    ]);
    expect(namesInContext('Kevin from Legal says the envelope never arrived.')).toEqual(['Kevin']);
    expect(namesInContext("Cheers,\nJames O'Brien")).toEqual(["James O'Brien"]);
    expect(namesInContext('Thanks for your help!\n\nGrace Scott')).toEqual(['Grace Scott']);
  });

  it('keeps products, commands and places', () => {
    for (const text of [
      'Running Start-ManagedFolderAssistant on the mailbox does nothing.',
      'Active Directory replication fails between the London and Singapore sites.',
      'Please add it to Microsoft Teams and Exchange Online.',
      'Hi team, SharePoint Online search is slow.',
      'Thanks,\nIT Service Desk',
      'The Power BI Pro license is for the Osaka office.',
      'One of our team cannot sign in. Request from the Head of HR.',
    ]) {
      expect(namesInContext(text), text).toEqual([]);
    }
  });
});
