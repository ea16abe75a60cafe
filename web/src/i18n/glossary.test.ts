// One term per idea (docs/glossary.md): every text of both message catalogues is walked against
// the glossary's table; a "not" term fails, and so does a "use" term that no text uses. Also the
// book-title marks of zh-CN around the documents' names in running text.
import { describe, expect, it } from 'vitest';
import en from './messages/en-US.json';
import zh from './messages/zh-CN.json';

// A glob, so that a missing file is a failing test rather than a file that cannot load.
const found = import.meta.glob<string>('../../../docs/glossary.md', { eager: true, query: '?raw', import: 'default' });
const md = Object.values(found)[0] ?? '';

interface Row {
  idea: string;
  enUse: string[];
  enNot: string[];
  zhUse: string[];
  zhNot: string[];
}

/** The rows of the table between the glossary markers. */
export function parseGlossary(text: string): Row[] {
  const block = text.split('<!-- glossary:start -->')[1]?.split('<!-- glossary:end -->')[0] ?? '';
  const terms = (cell: string) => cell.split(';').map((t) => t.trim()).filter(Boolean);
  return block
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|\s*(Idea|---)/.test(l))
    .map((l) => l.split('|').slice(1, -1).map((c) => c.trim()))
    .map(([idea = '', a = '', b = '', c = '', d = '']) => ({ idea, enUse: terms(a), enNot: terms(b), zhUse: terms(c), zhNot: terms(d) }));
}

const word = (t: string) => new RegExp(`(^|[^\\p{L}\\p{N}])${t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}\\p{N}])`, 'iu');
const catalogues = { 'en-US': en as Record<string, string>, 'zh-CN': zh as Record<string, string> };

/** The texts of `cat` that use `term` (English: whole words, any case; Chinese: anywhere). */
function uses(cat: Record<string, string>, term: string, english: boolean): string[] {
  const re = english ? word(term) : null;
  return Object.entries(cat)
    .filter(([, v]) => (re ? re.test(v) : v.includes(term)))
    .map(([k, v]) => `${k}: ${v}`);
}

describe('the glossary (docs/glossary.md)', () => {
  const rows = parseGlossary(md);

  it('is there, with the ideas the issue names', () => {
    expect(Object.keys(found)).toHaveLength(1);
    expect(rows.length).toBeGreaterThanOrEqual(5);
    for (const r of rows) expect(r.enUse.length * r.zhUse.length, r.idea).toBeGreaterThan(0);
    const all = rows.flatMap((r) => [...r.enUse, ...r.enNot]);
    for (const t of ['two-step verification', 'unlock code', 'backup code', 'sessions', 'user name', 'nickname', 'display name']) expect(all).toContain(t);
  });

  describe.each(rows)('$idea', (r) => {
    it('en-US uses none of the terms it rejects', () => {
      expect(r.enNot.flatMap((t) => uses(catalogues['en-US'], t, true))).toEqual([]);
    });
    it('zh-CN uses none of the terms it rejects', () => {
      expect(r.zhNot.flatMap((t) => uses(catalogues['zh-CN'], t, false))).toEqual([]);
    });
    it('each chosen term is used', () => {
      for (const t of r.enUse) expect(uses(catalogues['en-US'], t, true).length, t).toBeGreaterThan(0);
      for (const t of r.zhUse) expect(uses(catalogues['zh-CN'], t, false).length, t).toBeGreaterThan(0);
    });
  });

  it('a test that can fail: a rejected term is found', () => {
    expect(uses({ a: 'Enter your Unlock code' }, 'unlock code', true)).toEqual(['a: Enter your Unlock code']);
    expect(uses({ a: 'unlocked codes' }, 'unlock code', true)).toEqual([]);
    expect(uses({ a: '需要二次验证' }, '二次验证', false)).toHaveLength(1);
  });
});

describe('zh-CN book-title marks', () => {
  // The documents' names, and the placeholders that stand for them (register.terms).
  const names = ['服务协议', '隐私政策', '用户手册', '{protocols}', '{privacy}'];
  const bare = (v: string) =>
    names.some((n) => {
      if (v === n) return false; // a title alone (the document's own heading or page title)
      for (let i = v.indexOf(n); i >= 0; i = v.indexOf(n, i + 1)) if (v[i - 1] !== '《' || v[i + n.length] !== '》') return true;
      return false;
    });

  it('a document named in running text is in 《》', () => {
    expect(Object.entries(catalogues['zh-CN']).filter(([, v]) => bare(v)).map(([k, v]) => `${k}: ${v}`)).toEqual([]);
    expect(catalogues['zh-CN']['register.terms']).toBe('我已阅读并同意《{protocols}》和《{privacy}》');
  });

  it('and the check can fail', () => {
    expect(bare('请阅读隐私政策')).toBe(true);
    expect(bare('请阅读《隐私政策》')).toBe(false);
    expect(bare('隐私政策')).toBe(false);
  });
});

/** The rows of the one-meaning table (docs/glossary.md "One meaning per word"). */
export function parseMeanings(text: string): { idea: string; stems: string[]; zh: string }[] {
  const block = text.split('<!-- meanings:start -->')[1]?.split('<!-- meanings:end -->')[0] ?? '';
  return block
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|\s*(Idea|---)/.test(l))
    .map((l) => l.split('|').slice(1, -1).map((c) => c.trim()))
    .map(([idea = '', stems = '', zh = '']) => ({ idea, stems: stems.split(';').map((s) => s.trim()).filter(Boolean), zh }));
}

/** The ids whose two texts disagree about a meaning: one says the idea and the other does not. */
export function meaningMismatches(enCat: Record<string, string>, zhCat: Record<string, string>, stems: string[], zhWord: string): string[] {
  const re = new RegExp(`(^|[^\\p{L}])(${stems.join('|')})`, 'iu');
  return Object.keys(enCat)
    .filter((k) => k in zhCat && re.test(enCat[k] ?? '') !== (zhCat[k] ?? '').includes(zhWord))
    .map((k) => `${k}: ${enCat[k]} | ${zhCat[k]}`);
}

const CJK = '[\\u3000-\\u303f\\u3400-\\u9fff\\uff00-\\uffef]';
/** ASCII punctuation next to a Chinese character (a space between them included). */
export const asciiBesideCjk = new RegExp(`${CJK} ?[:,;?!()]|[:,;?!()] ?${CJK}`, 'u');

describe('zh-CN: one meaning per word, full-width punctuation, one console name (issue 34 item 7)', () => {
  const rows = parseMeanings(md);
  const console = Object.entries(catalogues['zh-CN']).filter(([k]) => k.startsWith('admin.') || k.startsWith('error.CONSOLE_'));

  it('the table names suspend, deactivate and disable, each its own word', () => {
    expect(rows.map((r) => r.zh)).toEqual(['暂停', '注销', '停用']);
    expect(new Set(rows.map((r) => r.zh)).size).toBe(rows.length);
  });

  it.each(rows)('$zh says "$idea" and nothing else, in every text of both catalogues', (r) => {
    expect(meaningMismatches(catalogues['en-US'], catalogues['zh-CN'], r.stems, r.zh)).toEqual([]);
  });

  it('no ASCII punctuation beside Chinese characters, in the console and everywhere else', () => {
    expect(console.length).toBeGreaterThan(300);
    expect(Object.entries(catalogues['zh-CN']).filter(([, v]) => asciiBesideCjk.test(v)).map(([k, v]) => `${k}: ${v}`)).toEqual([]);
  });

  it('the console has one name: every Chinese text that names it says 运营控制台 or 控制台 alone', () => {
    expect(catalogues['zh-CN']['admin.name']).toBe('运营控制台');
    const other = /(?<!运营)(运维|管理|后台|操作)控制台|管理后台/;
    expect(console.filter(([, v]) => other.test(v)).map(([k, v]) => `${k}: ${v}`)).toEqual([]);
    expect(Object.values(catalogues['zh-CN']).some((v) => v.includes('运营控制台'))).toBe(true);
  });

  it('and the checks can fail', () => {
    expect(meaningMismatches({ a: 'Suspend' }, { a: '停用' }, ['suspen'], '暂停')).toEqual(['a: Suspend | 停用']);
    expect(meaningMismatches({ a: 'Disabled' }, { a: '已停用' }, ['disabl', 'retir'], '停用')).toEqual([]);
    expect(meaningMismatches({ a: 'Retire it' }, { a: '作废' }, ['disabl', 'retir'], '停用')).toHaveLength(1);
    expect(asciiBesideCjk.test('失败: 请重试')).toBe(true);
    expect(asciiBesideCjk.test('国家(CN)')).toBe(true);
    expect(asciiBesideCjk.test('失败：请重试（CN）')).toBe(false);
    expect(asciiBesideCjk.test('ciam serve --no-console，或')).toBe(false);
  });
});
