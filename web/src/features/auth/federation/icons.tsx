// The providers' marks, drawn here as simple inline shapes (no third-party image or script: the
// CSP allows neither), decorative beside the provider's name.
const paths: Record<string, { color: string; d: string }> = {
  // Two speech bubbles.
  wechat: {
    color: '#07a35a',
    d: 'M9 4C5.1 4 2 6.6 2 9.8c0 1.8 1 3.4 2.6 4.5L4 16.5l2.6-1.3c.8.2 1.6.3 2.4.3h.4a5 5 0 0 1-.2-1.4c0-3 2.9-5.5 6.6-5.5h.4C15.6 5.9 12.6 4 9 4Zm7 6c-3 0-5.6 2-5.6 4.5S13 19 16 19c.6 0 1.2-.1 1.8-.3l2 1-.5-1.7c1.3-.8 2.2-2.1 2.2-3.5 0-2.5-2.5-4.5-5.5-4.5Z',
  },
  // A bubble with a corner spark.
  wecom: {
    color: '#1a73c9',
    d: 'M11 3C6 3 2 6.4 2 10.6c0 2.3 1.2 4.4 3.2 5.8L4.5 19.5l3.4-1.8c1 .3 2 .4 3.1.4 5 0 9-3.4 9-7.5S16 3 11 3Zm8.5 12.5 1.5 1.5-1.5 1.5-1.5-1.5 1.5-1.5Z',
  },
  // A wing.
  dingtalk: {
    color: '#1677d2',
    d: 'M4 4c4.5 2.2 10.5 3.4 15.5 3.6.9 0 1.2.9.7 1.5l-3.7 4.4 2.5.2-7.5 7.3 1.6-4.9-3.3-.3 2.2-2.4C8.5 12.6 5.4 8.7 4 4Z',
  },
  // A paper plane.
  feishu: {
    color: '#2f6fe4',
    d: 'M3 11.5 21 4l-3.5 16-5.5-4.5-3 3v-4.5L17 7l-10.5 7.2L3 11.5Z',
  },
};

export function ProviderIcon({ name }: { name: string }) {
  const p = Object.hasOwn(paths, name) ? paths[name]! : null;
  return (
    <svg className="fed-icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      {p ? <path fill={p.color} d={p.d} /> : <circle cx="12" cy="12" r="8" fill="currentColor" />}
    </svg>
  );
}
