// The avatar: what the browser checks before an upload, and the upload (PATCH /auth/avatar, the
// file itself as the body, through lib/api.ts's `call` like every other request: bearer token, a
// fresh X-Request-ID, the language; errors read the same way, for lib/api's handleError).
import { call, type Result, SKIP } from '../../lib/api';

/** Spec §5/§9: "Avatar max 1MB" (1 MiB; the server checks again: AVATAR_TOO_LARGE). */
export const AVATAR_MAX_BYTES = 1024 * 1024;
export const AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export const AVATAR_ACCEPT = AVATAR_TYPES.join(',');

export type AvatarProblem = 'type' | 'size' | null;

/** Why a chosen file cannot be the avatar, checked before any upload; null when it can. */
export function checkAvatar(file: { size: number; type: string }): AvatarProblem {
  if (!(AVATAR_TYPES as readonly string[]).includes(file.type)) return 'type';
  if (file.size > AVATAR_MAX_BYTES || file.size === 0) return 'size';
  return null;
}

/** PATCH /auth/avatar: the file itself is the body (its own Content-Type); errors are the caller's. */
export async function uploadAvatar(file: Blob): Promise<Result<{ avatar: string }>> {
  const res = await call('PATCH /auth/avatar', { body: file }, SKIP);
  if (!res.success || typeof res.data?.avatar === 'string') return res;
  return { success: false, error: { reason: 'INTERNAL_SERVER_ERROR', message: '', code: 200 } };
}
