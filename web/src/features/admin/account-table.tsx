// One table of accounts for the console's lists (the find box's groups and the held lists,
// find-box.tsx; the directory by company or sign-up day, accounts.tsx): the username as each
// row's header, linked to the account page, then the columns the list asks for.
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { adminPath } from '../../config/console-paths';
import { useLang } from './context';
import { TableFrame } from './widgets';

/** A column after the username: its heading and what a row shows in it. */
export type AccountColumn<R> = { head: ReactNode; cell: (row: R) => ReactNode };

export function AccountTable<R extends { userId: string; userName: string }>({
  caption,
  userNameHead,
  columns,
  rows,
  testId,
}: {
  caption: string;
  userNameHead: ReactNode;
  columns: AccountColumn<R>[];
  rows: R[];
  testId: string;
}) {
  const lang = useLang();
  return (
    <TableFrame label={caption}>
      <table data-testid={testId}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{userNameHead}</th>
            {columns.map((c, i) => (
              <th key={i} scope="col">
                {c.head}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.userId}>
              <th scope="row">
                <Link to={adminPath(lang, 'account', r.userId)}>{r.userName}</Link>
              </th>
              {columns.map((c, i) => (
                <td key={i}>{c.cell(r)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}
