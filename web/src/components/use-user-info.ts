// GET /auth/info for the personal pages: the account, a way to replace it after a change, and a
// reload that keeps showing the old values until the new ones arrive.
import { useCallback, useEffect, useState } from 'react';
import { getInfo } from '../lib/account-api';
import type { UserInfo } from '../lib/api-types.gen';

export function useUserInfo() {
  const [info, setInfo] = useState<UserInfo | null>(null);
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let alive = true;
    setFailed(false);
    void getInfo().then((r) => {
      if (!alive) return;
      if (r.success) setInfo(r.data);
      else setFailed(true);
    });
    return () => {
      alive = false;
    };
  }, [attempt]);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { info, setInfo, failed, reload };
}
