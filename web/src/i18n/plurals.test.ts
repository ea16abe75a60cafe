// Issue 12 §3: every count in the catalogues is an ICU plural ("15 minutes", never "15 minute"):
// an argument that holds a count ({n}, {count}, {minutes}, {days}, {codes}, {attempts}...) may
// only appear as `{x, plural, ...}`; in en-US each plural has its `one` and `other` forms
// (zh-CN needs `other` only).
import { describe, expect, it } from 'vitest';
import en from './messages/en-US.json';
import zh from './messages/zh-CN.json';

/** Argument names that hold a count. */
const COUNT = /^(n|num|number|count|total|left|remaining|\w*(Count|Number|Left|Minutes?|Seconds?|Hours?|Days?|Weeks?|Codes?|Times|Attempts?|Tries))$|^(minutes?|seconds?|hours?|days?|weeks?|months?|years?|codes?|times|attempts?|tries|items?)$/;

/** The problems of one message: count arguments outside a plural, plurals without their forms. */
export function countProblems(text: string, needOne: boolean): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\{\s*(\w+)\s*(?:,\s*(\w+)\s*)?[,}]/g)) {
    const [, name, type] = m;
    if (!COUNT.test(name!)) continue;
    if (type !== 'plural' && type !== 'selectordinal') {
      out.push(`{${name}} is a count outside a plural`);
      continue;
    }
    const body = text.slice(m.index);
    if (!/\bother\s*\{/.test(body)) out.push(`{${name}, plural} has no other form`);
    if (needOne && !/(\bone|=1)\s*\{/.test(body)) out.push(`{${name}, plural} has no one form`);
  }
  return out;
}

const problems = (cat: Record<string, string>, needOne: boolean) =>
  Object.entries(cat).flatMap(([id, text]) => countProblems(text, needOne).map((p) => `${id}: ${p}`));

describe('counts are ICU plurals', () => {
  it('the check itself', () => {
    expect(countProblems('Try it in {n} minute', true)).toEqual(['{n} is a count outside a plural']);
    expect(countProblems('{count} codes left', true)).toEqual(['{count} is a count outside a plural']);
    expect(countProblems('{days, number} days', true)).toEqual(['{days} is a count outside a plural']);
    expect(countProblems('{n, plural, other {# minutes}}', true)).toEqual(['{n, plural} has no one form']);
    expect(countProblems('{n, plural, one {# minute} other {# minutes}}', true)).toEqual([]);
    expect(countProblems('{n, plural, other {# 分钟}}', false)).toEqual([]);
    expect(countProblems('Remove {account}', true)).toEqual([]);
    expect(countProblems('Try again in {time}', true)).toEqual([]);
    expect(countProblems('{times} times', true)).toEqual(['{times} is a count outside a plural']);
  });

  it('en-US: every count is a plural with one and other', () => {
    expect(problems(en, true)).toEqual([]);
  });

  it('zh-CN: every count is a plural (other is enough)', () => {
    expect(problems(zh, false)).toEqual([]);
  });

  it('the English lock message says minutes', () => {
    expect((en as Record<string, string>)['error.lockedFor']).not.toMatch(/\{n\} minute/);
  });
});
