/**
 * Person names that business text marks by where it puts them, found without a dictionary:
 * Japanese self-introductions after a department (`経理部の山田太郎です`, `人事課 鈴木花子と申します`),
 * `担当者：佐藤`, signature blocks (`--\n高橋 一郎\n情報システム部`), and English greetings, sign-offs
 * and references (`Hi, this is John Smith from Finance`, `Regards,\nMaria Garcia`,
 * `per Robert Johnson's request`). The names become person fields of the scrub, so each is
 * removed wherever the text repeats it. Honorifics (`さん`, `様`, `Mr.`) are found by
 * personal-data-detectors.ts `peopleNamedIn`, which calls this. Pure and cheap: no analyzer (that
 * is person-name-analyzer.ts, loaded only where text leaves a person). ADR 0019.
 */

const KANJI = '[\\u4e00-\\u9fff々〆ヶ]';
const KATAKANA_NAME = '[\\u30a1-\\u30fa\\u30fc]{2,10}';
/** A Japanese name: 1–4 kanji, optionally a space and 1–4 more (a given name), or katakana. */
const JAPANESE_NAME = `(?:${KANJI}{1,4}(?:[ \\t]${KANJI}{1,4})?|${KATAKANA_NAME}(?:[ \\t・]${KATAKANA_NAME})?)`;

/** The end of an organisation word: a department, section, office, team. */
const ORGANISATION =
  '(?:部|課|室|係|局|班|チーム|グループ|センター|本部|支社|支店|営業所|工場|総務|経理|人事|営業|法務|広報|財務|情シス|情報システム|システム|購買|調達|開発|品質保証|製造|物流|秘書|受付)';

/** Openings a self-introduction follows. */
const GREETING =
  '(?:お疲れ様です|お疲れさまです|お世話になっております|お世話になります|こんにちは|失礼します|いつもありがとうございます)[。、！!]?';

/** Roles a self-introduction or a reference names a person by (`システム管理者の平野です`). */
const ROLE =
  '(?:管理者|担当者|責任者|リーダー|マネージャー|部長|課長|係長|主任|室長|社長|本部長|所長|支店長|上司|同僚|先輩|後輩|派遣社員|新入社員)';

/** `経理部の山田太郎です`, `総務の田中です`, `人事課 鈴木花子と申します`, `営業部・佐藤です`. */
const SELF_INTRODUCTION_AFTER_ORGANISATION = new RegExp(
  `(?:^|[\\n。！!]|${GREETING})[ \\t]*[\\u4e00-\\u9fff\\u30a1-\\u30fcA-Za-z0-9]{0,12}?(?:${ORGANISATION}|${ROLE})(?:の|[ \\t]|・|、)?[ \\t]*(?<name>${JAPANESE_NAME})[ \\t]?(?:です|と申します|と言います|といいます|でございます)`,
  'gm',
);

/** `山田と申します` anywhere, and `山田です` opening the text or after a greeting. */
const SELF_INTRODUCTION = new RegExp(
  `(?:^|${GREETING})[ \\t]*(?<name>${JAPANESE_NAME})(?:です|と申します|と言います|でございます)[。、！!\\s]`,
  'g',
);
const MOUSHIMASU = new RegExp(`(?<![\\u4e00-\\u9fff々])(?<name>${JAPANESE_NAME})と申します`, 'g');

/** `久保 大輔（営業部）`, `坂本（総務）から`: a name with its department in brackets after it. */
const NAME_WITH_DEPARTMENT = new RegExp(
  `(?<![\\u3040-\\u30ff\\u4e00-\\u9fff々A-Za-z0-9])(?<name>${KANJI}{2,4}(?:[ \\t]${KANJI}{1,4})?)[（(][\\u4e00-\\u9fff\\u30a1-\\u30fc]{0,10}${ORGANISATION}[）)]`,
  'g',
);

/** `…お願いします。井上`: a name closing the text or a line after a polite closing. */
const NAME_AFTER_CLOSING = new RegExp(
  `(?:お願いします|お願いいたします|お願い致します|願います)[。.!！]?[ \\t]*(?<name>${KANJI}{2,4}(?:[ \\t]${KANJI}{1,4})?)[ \\t]*(?=$|\\n)`,
  'g',
);

/** `担当者：佐藤`, `担当は佐藤です`, `担当 佐藤`, `対応者: 鈴木 一郎`. */
const PERSON_IN_CHARGE = new RegExp(
  `(?:担当者?|対応者|申請者|依頼者|報告者|承認者|連絡先|作成者|起票者|依頼元)(?:[ \\t]*[:：][ \\t]*|は|[ \\t]+)(?:${ORGANISATION}(?:の|[ \\t]))?(?<name>${JAPANESE_NAME})(?=です|さん|様|に|が|から|まで|へ|、|。|[ \\t]*$|[ \\t]*[\\n（(]|[ \\t]+[^\\u4e00-\\u9fff])`,
  'gm',
);

/**
 * A signature: a line that is only a name (`高橋 一郎`, `John Smith`) right after a separator line
 * (`--`, `――`, `＿＿＿`) or a sign-off, or right before a line naming a department or a contact.
 */
const SIGNATURE_SEPARATOR = /^[ \t]*(?:-{2,}|―{2,}|ー{2,}|_{3,}|={3,}|\*{3,}|─{2,})[ \t]*$/;
const SIGN_OFF_LINE =
  /(?:よろしくお願い(?:いた)?(?:します|致します|申し上げます)|以上(?:、よろしくお願いします)?|(?:best |kind |warm )?regards|(?:thanks|thank you)(?: (?:so much|again|in advance|for your help|for your time))?|cheers|sincerely|many thanks|best wishes|best|br)[。.,!！]?[ \t]*$/i;
const NAME_LINE_JAPANESE = new RegExp(`^[ \\t]*(?<name>${KANJI}{1,4}[ \\t]?${KANJI}{1,4})[ \\t]*$`);
const NAME_LINE_LATIN =
  /^[ \t]*(?<name>[A-Z](?:['’][A-Z])?[a-z'’-]+(?:[ \t]+[A-Z]\.)?(?:[ \t]+[A-Z](?:['’][A-Z])?[a-z'’-]+){1,2})[ \t]*,?[ \t]*$/;
const ORGANISATION_OR_CONTACT_LINE = new RegExp(
  `${ORGANISATION}|@|(?:TEL|Tel|tel|内線|Ext|ext)\\b|\\d{2,4}-\\d{2,4}-\\d{3,4}|(?:Department|Dept|Team|Division|Office|Manager|Engineer|Administrator|Analyst|Specialist)\\b`,
);

/** A word of a phrase, its first letter in either case (the names after it are case-sensitive). */
function eitherCase(phrase: string): string {
  const first = phrase[0] ?? '';
  return `[${first.toUpperCase()}${first.toLowerCase()}]${phrase.slice(1).replace(/ /g, '[ \\t]+')}`;
}
const anyOf = (phrases: readonly string[]) => `(?:${phrases.map(eitherCase).join('|')})`;

/** Two or three capitalised words (`John Smith`, `James O'Brien`, `Mary-Ann Lee`). */
const LATIN_WORD = "[A-Z](?:['’][A-Z])?[a-z]+(?:[A-Z][a-z]+)?(?:-[A-Z][a-z]+)?";
const LATIN_NAME = `(?<name>${LATIN_WORD}(?:[ \\t]+${LATIN_WORD}){1,2})`;
/** One to three capitalised words. */
const LATIN_NAME_ONE_OR_MORE = `(?<name>${LATIN_WORD}(?:[ \\t]+${LATIN_WORD}){0,2})`;

/** `this is John Smith`, `my name is …`, `I'm …`. */
const ENGLISH_SELF_INTRODUCTION = new RegExp(
  `\\b${anyOf(['this is', 'my name is', "I'm", 'I’m', 'I am'])}[ \\t]+${LATIN_NAME_ONE_OR_MORE}(?=[ \\t]+(?:from|in|at|of|with|on|and|here|who)\\b|[ \\t]*[,.!;:\\n(]|[ \\t]*$)`,
  'g',
);
/** `Regards,\nMaria Garcia`, `Thanks, Ken Ito`: the name after a sign-off, same line or next. */
const ENGLISH_SIGN_OFF = new RegExp(
  `\\b${anyOf(['best regards', 'kind regards', 'warm regards', 'regards', 'thanks again', 'thanks', 'thank you', 'cheers', 'sincerely', 'many thanks', 'best wishes', 'best'])}[ \\t]*[,.!]?[ \\t]*(?:\\n[ \\t]*|[ \\t]*)(?:-[ \\t]*)?${LATIN_NAME_ONE_OR_MORE}[ \\t]*(?=\\n|$)`,
  'g',
);
/** `Hi Maria,`, `Dear Mr Ito`, `Hello John Smith,`. */
const ENGLISH_GREETING = new RegExp(
  `(?:^|\\n|[.!?][ \\t]+)${anyOf(['hi', 'hello', 'dear', 'hey', 'good morning', 'good afternoon'])}[ \\t]+${LATIN_NAME_ONE_OR_MORE}[ \\t]*[,!\\n]`,
  'g',
);

/** Words after which a capitalised pair is a person: `per`, `approved by`, `ask`, `cc`… */
const REFERENCE_WORDS = [
  'per',
  'on behalf of',
  'according to',
  'cc',
  'approved by',
  'requested by',
  'reported by',
  'submitted by',
  'raised by',
  'opened by',
  'assigned to',
  'escalated to',
  'forwarded by',
  'forward it to',
  'sent by',
  'signed by',
  'spoke to',
  'spoke with',
  'talked to',
  'called',
  'ask',
  'asked',
  'tell',
  'told',
  'remind',
  'contact',
  'contacted',
  'notify',
  'notified',
  'inform',
  'informed',
  'ping',
  'pinged',
  'email',
  'emailed',
  'message',
  'add',
  'added',
  'remove',
  'removed',
  'invite',
  'invited',
  'grant',
  'granted',
  'with',
  'from',
  'for',
  'to',
  'manager',
  'colleague',
  'supervisor',
  'boss',
  'new hire',
  'new joiner',
  'contractor',
  'intern',
  'employee',
  'owner is',
  'requester is',
  'requestor is',
  'user is',
  'manager is',
  'contact is',
  'approver is',
  'assignee is',
];
/** What may follow a referenced name: punctuation, a possessive, a joining word or a verb. */
const AFTER_REFERENCED_NAME =
  "(?=['’]s\\b|[ \\t]*[,.;:!?)\\n]|[ \\t]+(?:and|or|who|from|in|at|on|about|to|asked|said|says|wants|needs|reported|requested|called|mentioned|approved|confirmed|owns|is|was|has|had|will|can|could|would)\\b|[ \\t]*$)";
const ENGLISH_REFERENCE = new RegExp(
  `\\b${anyOf(REFERENCE_WORDS)}:?[ \\t]+${LATIN_NAME}${AFTER_REFERENCED_NAME}`,
  'g',
);
/** `cc: Matthew Jackson, Karen Lewis`: every name of a cc list. */
const ENGLISH_CC_LIST = /\b[Cc][Cc]:?[ \t]+(?<list>[A-Z][^\n]*)/g;
/** `Robert Johnson's request`: a two-word name with a possessive. */
const ENGLISH_POSSESSIVE = new RegExp(`${LATIN_NAME}['’]s\\b`, 'g');
/** `Anthony Harris reported that…`: a sentence opening with a name and a verb of a person. */
const ENGLISH_SUBJECT = new RegExp(
  `(?:^|\\n|[.!?;][ \\t]+)${LATIN_NAME}[ \\t]+(?:and[ \\t]+[A-Z][a-z'’]+[ \\t]+[A-Z][a-z'’]+[ \\t]+)?(?:asked|said|says|wants|needs|need|reported|requested|called|mentioned|approved|confirmed|owns|cannot|can't|can’t|is|was|has|had|will|would|told|sent|wrote|emailed)\\b`,
  'g',
);
/** `Kevin from Legal`, `Yuki Sato from the Osaka branch`: a name and where in the company. */
const ENGLISH_FROM_DEPARTMENT = new RegExp(
  `${LATIN_NAME_ONE_OR_MORE}[ \\t]+(?:from|in)[ \\t]+(?:(?:the|our)[ \\t]+(?:[A-Z][a-z]+[ \\t]+)?(?:office|branch|team|department|site|plant)\\b|(?:Legal|Finance|HR|IT|Sales|Marketing|Accounting|Procurement|Engineering|Operations|Security|Facilities|Payroll|Compliance|Audit|Treasury|Logistics|Purchasing|Admin|Administration|Support)\\b)`,
  'g',
);

/**
 * Capitalised words that are not names: products, vendors, places used as office names, and
 * the words a sign-off or greeting is followed by. A candidate with any of them is refused.
 */
const NOT_NAME_WORDS = new Set(
  (
    'Active Directory Azure Microsoft Windows Office Outlook Teams Exchange Online Server Share' +
    ' Point SharePoint OneDrive Excel Word PowerPoint Access Google Chrome Edge Firefox Safari Mac' +
    ' Apple Adobe Acrobat Reader Zoom Slack Salesforce Cisco Any Connect AnyConnect Global Protect' +
    ' GlobalProtect Fortinet Forti Client VPN Wi Fi Amazon Web Services AWS Linux Ubuntu Oracle SAP' +
    ' Citrix Workspace Okta Entra Intune Defender Bit Locker BitLocker Box Dropbox Jira Confluence' +
    ' ServiceNow Zendesk Git Hub GitHub Lab GitLab Docker Visual Studio Code Python Java Team Teams' +
    ' Finance Sales Marketing Legal Accounting Support Service Desk Help Desk Helpdesk IT HR Human' +
    ' Resources Operations Engineering Security Network Infrastructure Facilities Procurement' +
    ' Department Dept Division Group Office Tokyo Osaka Nagoya Fukuoka Sapporo Yokohama Kyoto' +
    ' London New York Singapore Seattle Branch Headquarters HQ Monday Tuesday Wednesday Thursday' +
    ' Friday Saturday Sunday January February March April May June July August September October' +
    ' November December Thanks Thank Regards Best Cheers Hi Hello Dear All Everyone Team There Sir' +
    ' Madam Please Sorry Yes No Ok OK Okay The This That It I We You They Error Update Printer' +
    ' Label Start Stop Get Set New Managed Folder Assistant Policy Group Mailbox Calendar Meeting' +
    ' Room Building Floor North South East West Central Management Admin Administrator User Users' +
    ' Global Local Remote Desktop Manager Portal System Systems Center Centre Cloud Platform Premium' +
    ' Enterprise Business Pro Plus Home Edition Version Release Preview Hyper Defender Endpoint' +
    ' Authenticator Duo Lenovo Dell HP Canon Ricoh Epson Xerox Brother Kyocera Sharp Fujitsu NEC' +
    ' Toshiba Panasonic Sony Samsung iPhone iPad Android Pixel Galaxy Surface ThinkPad Latitude' +
    ' Project Visio Power Automate Apps BI Forms Planner Viva Yammer Stream Whiteboard Loop Copilot' +
    ' Bing Kindle Notes Keynote Pages Numbers Photoshop Illustrator Premiere Creative Cloud Finder' +
    ' Explorer File Files Drive Drives Print Queue Spooler Task Scheduler Event Viewer Control Panel' +
    ' Head Chief Director Lead One Two Three Some Many Most Each Every Settings Device Devices Disk Registry Firewall Proxy Ethernet Bluetooth Wireless Guest Corp'
  ).split(' '),
);
const NOT_NAME_JAPANESE = new Set([
  '不明',
  '未定',
  '不在',
  '未割当',
  '自分',
  '私',
  '当方',
  '本人',
  '上司',
  '同僚',
  '全員',
  '各位',
  '皆様',
  '以上',
  '宜しく',
  '管理者',
  '利用者',
  '担当者',
  '総務',
  '経理',
  '人事',
  '営業',
  '法務',
  '広報',
  '財務',
  '開発',
  '購買',
  '調達',
  '製造',
  '物流',
  '秘書',
  '受付',
  '情報',
  '情報システム',
  '情報システム部',
  '未対応',
  '対応中',
  '確認中',
  '調査中',
  '完了',
  '保留',
  '窓口',
  '代理',
  '外部',
  '社外',
  '社内',
  '部署',
  '部門',
  '部長',
  '課長',
  '係長',
  '社長',
  '主任',
  '室長',
  '本日',
  '明日',
  '昨日',
  '今日',
  '先日',
  '今回',
  '前回',
  '次回',
  '現在',
  '至急',
  '対応',
  '確認',
  '連絡',
  '依頼',
  '報告',
  '承認',
  '申請',
  '作業',
  '以下',
  // Nouns a service-desk text puts where a self-introduction puts a name (`システム部の不具合です`).
  // Words departments are named with (`営業企画です`: a department introducing itself).
  ...'企画 管理 推進 戦略 設計 技術 品質 生産 業務 運用 保守 営業企画 経営企画 上長'.split(' '),
  ...'不具合 問題 障害 設定 内容 端末 案件 仕様 予定 管轄 共有 資料 備品 機器 業務 担当 所属 管理 方針 規定 会議 予算 経費 書類 要望 質問 回答 状況 結果 原因 影響 範囲 手順 方法 環境 権限 契約 在庫 発注 注文 件 者 方 分 用 席 番 物 品'.split(
    ' ',
  ),
]);

/** Sentence words a capitalised run may start with (`Per Robert Johnson's`): not the name. */
const LEADING_WORDS = new Set(
  [
    ...REFERENCE_WORDS.map((phrase) => phrase.split(' ')[0] ?? ''),
    ...'please hi hello dear hey thanks thank regards best cheers kind warm sincerely our my the this that cc'.split(
      ' ',
    ),
  ].map((word) => word.charAt(0).toUpperCase() + word.slice(1)),
);

/** The name without the sentence words before it, or undefined when none of it is a name. */
function trimLatin(name: string): string | undefined {
  const words = name.trim().split(/[ \t]+/);
  while (words.length > 1 && LEADING_WORDS.has(words[0] ?? '')) words.shift();
  if (words.some((word) => NOT_NAME_WORDS.has(word.replace(/['’]s$/, '')))) return undefined;
  if (words.length === 1 && LEADING_WORDS.has(words[0] ?? '')) return undefined;
  return words.join(' ');
}

/** A Japanese name without an organisation or role written before it with a space. */
function trimJapanese(name: string): string {
  const [first, ...rest] = name.trim().split(/[ \t]+/);
  if (rest.length === 0 || first === undefined) return name.trim();
  const organisation = new RegExp(`(?:${ORGANISATION}|${ROLE})$`);
  return organisation.test(first) ? rest.join(' ') : name.trim();
}

function acceptJapanese(name: string, minimumLength: number): boolean {
  const compact = name.replace(/[ \t・]/g, '');
  if (compact.length < minimumLength) return false;
  if (NOT_NAME_JAPANESE.has(compact)) return false;
  // A name never ends in an organisation word (`情報システム部`, `営業課`).
  if (new RegExp(`${ORGANISATION}$`).test(compact) && !/[\u30a1-\u30fa]$/.test(compact))
    return false;
  return ![...NOT_NAME_JAPANESE].some((word) => word.length >= 2 && compact.startsWith(word));
}

/**
 * The names `text` marks by its business phrasing (see the module comment), each once, in the
 * order found: Japanese names as written (`山田太郎`, `高橋 一郎`), English names as written.
 *
 * @example
 * namesInContext('経理部の山田太郎です。\nRegards,\nMaria Garcia'); // ['山田太郎', 'Maria Garcia']
 */
export function namesInContext(text: string): string[] {
  const names = new Set<string>();
  const addJapanese = (found: string | undefined, minimumLength = 2) => {
    if (found === undefined) return;
    const name = trimJapanese(found);
    if (acceptJapanese(name, minimumLength)) names.add(name);
  };
  const addLatin = (found: string | undefined) => {
    const name = found === undefined ? undefined : trimLatin(found);
    if (name !== undefined) names.add(name);
  };
  // A self-introduction is clear enough for a one-character surname (`人事部の林です`).
  for (const pattern of [SELF_INTRODUCTION_AFTER_ORGANISATION, SELF_INTRODUCTION, MOUSHIMASU]) {
    for (const match of text.matchAll(pattern)) addJapanese(match.groups?.name, 1);
  }
  for (const pattern of [PERSON_IN_CHARGE, NAME_WITH_DEPARTMENT, NAME_AFTER_CLOSING]) {
    for (const match of text.matchAll(pattern)) addJapanese(match.groups?.name);
  }
  for (const pattern of [ENGLISH_SELF_INTRODUCTION, ENGLISH_SIGN_OFF, ENGLISH_GREETING]) {
    for (const match of text.matchAll(pattern)) addLatin(match.groups?.name);
  }
  for (const pattern of [
    ENGLISH_REFERENCE,
    ENGLISH_POSSESSIVE,
    ENGLISH_SUBJECT,
    ENGLISH_FROM_DEPARTMENT,
  ]) {
    for (const match of text.matchAll(pattern)) addLatin(match.groups?.name);
  }
  for (const match of text.matchAll(ENGLISH_CC_LIST)) {
    for (const entry of (match.groups?.list ?? '').split(/[ \t]*(?:,|;|\band\b)[ \t]*/)) {
      if (/^[A-Z][a-z'’-]+(?:[ \t]+[A-Z][a-z'’-]+){1,2}$/.test(entry.trim())) addLatin(entry);
    }
  }
  for (const name of signatureNames(text)) {
    if (/[A-Za-z]/.test(name)) addLatin(name);
    else addJapanese(name);
  }
  return [...names];
}

/** Names standing alone on a line of a signature block. */
function signatureNames(text: string): string[] {
  const lines = text.split(/\r?\n/);
  const found: string[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    const match = NAME_LINE_JAPANESE.exec(line) ?? NAME_LINE_LATIN.exec(line);
    const name = match?.groups?.name;
    if (name === undefined) continue;
    let previousIndex = index - 1;
    while (previousIndex > 0 && (lines[previousIndex] ?? '').trim() === '') previousIndex -= 1;
    const previous = lines[previousIndex] ?? '';
    const next = lines[index + 1] ?? '';
    const afterSeparator = SIGNATURE_SEPARATOR.test(previous) || SIGN_OFF_LINE.test(previous);
    const beforeOrganisation = ORGANISATION_OR_CONTACT_LINE.test(next) && next.trim() !== '';
    if (afterSeparator || beforeOrganisation) found.push(name);
  }
  return found;
}
