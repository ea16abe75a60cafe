// `GET /auth/info` (docs/openapi.json UserInfo): mail and phone arrive masked.
export interface UserInfo {
  userId: string;
  userName: string;
  mail: string | null;
  phone: string | null;
  company: string | null;
  duty: string | null;
  address: string | null;
  displayName: string | null;
  country: string | null;
  avatar: string | null;
  advertisement: 'subscribe' | 'unsubscribe';
  tag: { eiamUid: string | null };
  enableTotp: boolean;
  isComplete: boolean;
  isSubscribe: boolean;
  isEiamUser: boolean;
}
