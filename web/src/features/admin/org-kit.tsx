// What the organizations' screens share: the words for an organization's status and roles, its
// name in the page's language, and a small table of headed rows.
import type { ReactNode } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { TableFrame } from './widgets';

export const orgStatusNames: Record<string, MessageDescriptor> = defineMessages({
  requested: { id: 'admin.org.status.requested', defaultMessage: 'Requested' },
  active: { id: 'admin.org.status.active', defaultMessage: 'Active' },
  suspended: { id: 'admin.org.status.suspended', defaultMessage: 'Suspended' },
});

export const orgRoleNames: Record<string, MessageDescriptor> = defineMessages({
  owner: { id: 'admin.org.role.owner', defaultMessage: 'Owner' },
  admin: { id: 'admin.org.role.admin', defaultMessage: 'Admin' },
  member: { id: 'admin.org.role.member', defaultMessage: 'Member' },
});

/** The organization's name in the page's language. */
export function useOrgName() {
  const zh = useIntl().locale === 'zh-CN';
  return (o: { nameZh: string; nameEn: string }) => (zh ? o.nameZh || o.nameEn : o.nameEn || o.nameZh);
}

/** A table with a caption and column headers; each row's first cell is its header. */
export function OrgTable({ caption, cols, testId, children }: { caption: string; cols: MessageDescriptor[]; testId: string; children: ReactNode }) {
  return (
    <TableFrame label={caption}>
      <table data-testid={testId}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {cols.map((c) => (
              <th scope="col" key={c.id}>
                <FormattedMessage {...c} />
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </TableFrame>
  );
}
