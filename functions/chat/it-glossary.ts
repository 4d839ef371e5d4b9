/**
 * A bilingual IT service-desk glossary: each entry names one thing (a system, a symptom, an
 * action) in Japanese and in English. The retrieval query of an inquiry is expanded with the
 * other language's words for what it mentions (`retrieval-query.ts`), so an English question
 * finds a Japanese ticket and the reverse — keyword search cannot bridge languages, and the local
 * index is keyword search.
 *
 * Written as general help-desk vocabulary, not from the evaluation queries (that would only
 * measure the glossary against itself). Japanese variants are matched as substrings (no word
 * boundaries in Japanese); English ones as whole words, case-insensitively. The first word of
 * each side is the one added to a query; the others only recognise the entry.
 */
export interface GlossaryEntry {
  readonly ja: readonly string[];
  readonly en: readonly string[];
}

export const IT_GLOSSARY: readonly GlossaryEntry[] = [
  // Access and accounts
  {
    ja: ['ログイン', 'ログオン', 'サインイン'],
    en: ['login', 'log in', 'logon', 'sign in', 'signin'],
  },
  { ja: ['パスワード', 'パスワ', 'PW'], en: ['password', 'passcode'] },
  { ja: ['パスワードを忘れ', 'パスワード忘れ'], en: ['forgot password', 'forgot my password'] },
  {
    ja: ['アカウントロック', 'ロックされ', 'ロックアウト'],
    en: ['locked out', 'account locked', 'lockout'],
  },
  { ja: ['アカウント'], en: ['account'] },
  {
    ja: ['多要素認証', '二段階認証', '2段階認証', 'MFA'],
    en: ['mfa', 'two-factor', '2fa', 'multi-factor'],
  },
  { ja: ['認証アプリ', 'Authenticator'], en: ['authenticator', 'authenticator app'] },
  { ja: ['シングルサインオン', 'SSO'], en: ['sso', 'single sign-on'] },
  { ja: ['権限', 'アクセス権'], en: ['permission', 'permissions', 'access rights'] },
  {
    ja: ['アクセス拒否', 'アクセスできない', 'アクセスが拒否'],
    en: ['access denied', 'cannot access', "can't access"],
  },
  { ja: ['管理者権限'], en: ['admin rights', 'administrator rights', 'local admin'] },
  { ja: ['有効期限', '期限切れ'], en: ['expired', 'expiry', 'expiration'] },
  { ja: ['証明書'], en: ['certificate', 'cert'] },
  // Connecting
  {
    ja: ['接続できない', 'つながらない', '繋がらない', '接続エラー'],
    en: ["can't connect", 'cannot connect', 'connection failed', 'not connecting'],
  },
  {
    ja: ['切断', '切れる', '落ちる'],
    en: ['disconnect', 'disconnects', 'dropped', 'keeps dropping'],
  },
  { ja: ['インターネット', 'ネット'], en: ['internet'] },
  { ja: ['ネットワーク'], en: ['network'] },
  { ja: ['無線LAN', 'Wi-Fi', 'WiFi', '無線'], en: ['wifi', 'wi-fi', 'wireless'] },
  { ja: ['有線LAN', 'LANケーブル'], en: ['ethernet', 'wired', 'lan cable'] },
  { ja: ['遅い', '重い'], en: ['slow', 'sluggish'] },
  {
    ja: ['在宅勤務', 'テレワーク', 'リモートワーク'],
    en: ['working from home', 'remote work', 'wfh'],
  },
  // Devices
  { ja: ['プリンター', 'プリンタ', '複合機'], en: ['printer', 'mfp', 'copier'] },
  { ja: ['印刷'], en: ['print', 'printing'] },
  { ja: ['紙詰まり'], en: ['paper jam', 'jammed'] },
  { ja: ['トナー', 'インク'], en: ['toner', 'ink'] },
  { ja: ['スキャン', 'スキャナ'], en: ['scan', 'scanner', 'scanning'] },
  { ja: ['ドライバー', 'ドライバ'], en: ['driver', 'drivers'] },
  {
    ja: ['パソコン', 'PC', 'ノートPC', 'ノートパソコン'],
    en: ['pc', 'laptop', 'computer', 'notebook'],
  },
  {
    ja: ['起動しない', '起動できない', '立ち上がらない', '電源が入らない'],
    en: ["won't boot", "won't start", 'does not start', "won't turn on", 'not booting'],
  },
  { ja: ['起動'], en: ['boot', 'startup', 'start up'] },
  {
    ja: ['フリーズ', '固まる', '固まっ', '応答しない'],
    en: ['freeze', 'freezes', 'frozen', 'hangs', 'not responding'],
  },
  { ja: ['ブルースクリーン'], en: ['blue screen', 'bsod'] },
  { ja: ['再起動'], en: ['restart', 'reboot'] },
  { ja: ['初期化', 'リセット'], en: ['reset', 'factory reset', 'wipe'] },
  { ja: ['バッテリー', '充電'], en: ['battery', 'charging'] },
  {
    ja: ['モニター', 'ディスプレイ', '外部モニター'],
    en: ['monitor', 'display', 'external monitor'],
  },
  { ja: ['画面'], en: ['screen'] },
  { ja: ['キーボード'], en: ['keyboard'] },
  { ja: ['マウス'], en: ['mouse'] },
  { ja: ['カメラ'], en: ['camera', 'webcam'] },
  { ja: ['マイク'], en: ['microphone', 'mic'] },
  { ja: ['音が出ない', '音声', 'スピーカー'], en: ['audio', 'sound', 'speaker', 'no sound'] },
  { ja: ['ヘッドセット', 'イヤホン'], en: ['headset', 'headphones', 'earphones'] },
  { ja: ['ドッキングステーション', 'ドック'], en: ['docking station', 'dock'] },
  {
    ja: ['スマホ', 'スマートフォン', '携帯', 'iPhone', 'Android'],
    en: ['smartphone', 'phone', 'mobile', 'iphone', 'android'],
  },
  { ja: ['紛失', 'なくし', '無くし', '盗難'], en: ['lost', 'stolen', 'missing device'] },
  { ja: ['故障', '壊れ', '破損'], en: ['broken', 'damaged', 'faulty'] },
  { ja: ['交換'], en: ['replacement', 'replace'] },
  { ja: ['貸出', '貸し出し'], en: ['loan', 'loaner', 'borrow'] },
  { ja: ['プロジェクター'], en: ['projector'] },
  { ja: ['USBメモリ', 'USB'], en: ['usb', 'usb stick', 'flash drive'] },
  // Security
  { ja: ['回復キー', '回復キ', 'BitLocker'], en: ['recovery key', 'bitlocker'] },
  { ja: ['暗号化'], en: ['encryption', 'encrypted'] },
  {
    ja: ['フィッシング', '不審なメール', '怪しいメール'],
    en: ['phishing', 'suspicious email', 'suspicious mail'],
  },
  { ja: ['ウイルス', 'マルウェア', 'ランサムウェア'], en: ['virus', 'malware', 'ransomware'] },
  {
    ja: ['情報漏えい', '情報漏洩', '誤送信'],
    en: ['data leak', 'sent to the wrong', 'wrong recipient'],
  },
  { ja: ['セキュリティ'], en: ['security'] },
  // Mail, calendar, collaboration
  { ja: ['メール'], en: ['email', 'e-mail', 'mail'] },
  { ja: ['受信できない', '届かない', '受信'], en: ['not receiving', 'not arriving', 'receive'] },
  { ja: ['送信できない', '送れない', '送信'], en: ['cannot send', "can't send", 'send'] },
  { ja: ['添付'], en: ['attachment', 'attachments'] },
  { ja: ['転送'], en: ['forward', 'forwarding'] },
  { ja: ['迷惑メール'], en: ['spam', 'junk'] },
  { ja: ['署名'], en: ['signature'] },
  { ja: ['共有メールボックス', '共有アドレス'], en: ['shared mailbox'] },
  { ja: ['配布リスト', 'メーリングリスト'], en: ['distribution list', 'mailing list'] },
  { ja: ['予定表', 'カレンダー'], en: ['calendar'] },
  { ja: ['会議'], en: ['meeting'] },
  { ja: ['会議室'], en: ['meeting room', 'conference room'] },
  { ja: ['録画'], en: ['recording', 'record'] },
  { ja: ['画面共有'], en: ['screen sharing', 'share screen', 'share my screen'] },
  { ja: ['チャット'], en: ['chat'] },
  { ja: ['チャネル', 'チャンネル'], en: ['channel'] },
  { ja: ['通知'], en: ['notification', 'notifications'] },
  { ja: ['ゲスト', '外部ユーザー', '社外'], en: ['guest', 'external user', 'external'] },
  // Files and storage
  {
    ja: ['共有フォルダ', 'ファイルサーバー'],
    en: ['shared folder', 'file server', 'shared drive'],
  },
  { ja: ['共有'], en: ['share', 'sharing'] },
  { ja: ['同期'], en: ['sync', 'syncing'] },
  { ja: ['容量', 'ストレージ', '空き容量'], en: ['storage', 'quota', 'disk space'] },
  { ja: ['削除'], en: ['delete', 'deleted'] },
  { ja: ['復元', '元に戻'], en: ['restore', 'recover'] },
  { ja: ['バックアップ'], en: ['backup'] },
  { ja: ['ファイル'], en: ['file', 'files'] },
  { ja: ['リンク'], en: ['link'] },
  // Software
  { ja: ['インストール'], en: ['install', 'installation'] },
  { ja: ['アンインストール'], en: ['uninstall'] },
  { ja: ['アップデート', '更新'], en: ['update', 'upgrade'] },
  { ja: ['ライセンス'], en: ['license', 'licence'] },
  { ja: ['ソフトウェア', 'ソフト', 'アプリ'], en: ['software', 'app', 'application'] },
  { ja: ['エラー'], en: ['error'] },
  { ja: ['申請'], en: ['request', 'application form'] },
  { ja: ['承認'], en: ['approval', 'approve'] },
  // People and HR
  {
    ja: ['入社', '新入社員', '新しいメンバー'],
    en: ['new hire', 'onboarding', 'new joiner', 'new employee'],
  },
  { ja: ['退職', '退社'], en: ['leaving', 'offboarding', 'leaver', 'resignation'] },
  { ja: ['異動'], en: ['transfer', 'department change'] },
  { ja: ['給与', '給料'], en: ['salary', 'payroll', 'payslip'] },
  { ja: ['勤怠'], en: ['attendance', 'timesheet'] },
  { ja: ['経費'], en: ['expense', 'expenses'] },
  // Systems (names are shared; the Japanese side adds the kana spelling staff also type)
  { ja: ['アウトルック'], en: ['outlook'] },
  { ja: ['チームズ'], en: ['teams'] },
  { ja: ['ズーム'], en: ['zoom'] },
  { ja: ['セールスフォース'], en: ['salesforce'] },
  { ja: ['スラック'], en: ['slack'] },
  { ja: ['ワンドライブ'], en: ['onedrive'] },
  { ja: ['シェアポイント'], en: ['sharepoint'] },
  { ja: ['エクセル'], en: ['excel'] },
];
