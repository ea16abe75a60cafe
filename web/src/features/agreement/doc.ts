// The shape of an agreement document: sections of paragraphs, bullet items and storage keys.
// Every text is a message (one per paragraph or item) so both languages stay in the catalogue.
import type { MessageDescriptor } from 'react-intl';

export interface Section {
  heading: MessageDescriptor;
  paras?: MessageDescriptor[];
  items?: MessageDescriptor[];
  /** Local-storage keys with what each holds; the key itself is shown as code, untranslated. */
  keys?: { key: string; text: MessageDescriptor }[];
  after?: MessageDescriptor[];
}

export interface Doc {
  intro: MessageDescriptor[];
  sections: Section[];
}
