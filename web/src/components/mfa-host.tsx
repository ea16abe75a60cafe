// The multi-factor modal's host, in every screen's shell: it draws the modal (mfa-modal.tsx) while
// a second step is open. The modal is a chunk of its own, loaded when a first step starts (a
// password or staff sign-in calls `mfa.signingIn`) or when a step opens, so the screens that never
// ask for a second step (and the first paint of sign-in, the tightest size budget) do not carry it.
import { lazy, Suspense, useEffect, useSyncExternalStore } from 'react';
import { ChunkBoundary, Loading, withTimeout } from './lazy-screen';
import * as mfa from '../lib/mfa';

const load = () => import('./mfa-modal');
const MfaModal = lazy(() => withTimeout(load().then((m) => ({ default: m.MfaModal })), 'mfa'));

export function MfaHost() {
  const challenge = useSyncExternalStore(mfa.subscribe, mfa.current, mfa.current);
  useEffect(() => {
    mfa.whenSigningIn(() => void load().catch(() => undefined));
    return () => mfa.whenSigningIn(null);
  }, []);
  if (challenge === null) return null;
  return (
    <ChunkBoundary>
      <Suspense fallback={<Loading />}>
        <MfaModal challenge={challenge} />
      </Suspense>
    </ChunkBoundary>
  );
}
