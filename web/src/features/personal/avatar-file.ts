// The avatar upload (PATCH /auth/avatar): the file itself is the body, with its own Content-Type.
// lib/api.ts speaks JSON only, so this sends the same headers it does (bearer token, a fresh
// X-Request-ID, the language) and reads errors the same way, for lib/api's handleError.
import { type ApiError, BASE, type Result } from '../../lib/api';
import * as session from '../../lib/session';
import type { AnyReason } from '../../lib/reasons';

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

export async function uploadAvatar(file: Blob, locale: string): Promise<Result<{ avatar: string }>> {
  const headers: Record<string, string> = {
    'Content-Type': file.type,
    'X-Request-ID': crypto.randomUUID(),
    'Accept-Language': locale,
  };
  const t = session.token();
  if (t) headers.Authorization = `Bearer ${t}`;
  let res: Response;
  try {
    res = await fetch(`${BASE}/auth/avatar`, { method: 'PATCH', headers, body: file });
  } catch {
    return { success: false, error: { reason: 'NETWORK_ERROR', message: '', code: 0 } };
  }
  let json: unknown;
  try {
    json = JSON.parse(await res.text());
  } catch {
    json = null;
  }
  const body = (json ?? {}) as Partial<ApiError> & { avatar?: unknown };
  if (res.ok && typeof body.avatar === 'string') return { success: true, data: { avatar: body.avatar } };
  return {
    success: false,
    error: {
      reason: typeof body.reason === 'string' ? (body.reason as AnyReason) : 'INTERNAL_SERVER_ERROR',
      message: typeof body.message === 'string' ? body.message : '',
      code: typeof body.code === 'number' ? body.code : res.status,
      field: body.field,
    },
  };
}
