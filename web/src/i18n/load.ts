// Loads the precompiled catalogue of one locale (its own chunk: a visitor downloads one language).
import type { MessageFormatElement } from 'react-intl';
import type { Locale } from './locale';

export type Messages = Record<string, MessageFormatElement[]>;

export async function loadMessages(locale: Locale): Promise<Messages> {
  const m = locale === 'en-US' ? await import('./compiled/en-US.json') : await import('./compiled/zh-CN.json');
  return m.default as unknown as Messages;
}
