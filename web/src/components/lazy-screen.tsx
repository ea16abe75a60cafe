// Screens load lazily, one chunk per route, with a 120 s timeout. A chunk that fails to load
// shows 'Loading chunk N failed' (or the CSS variant) with a retry.
import { Component, lazy, type ComponentType, type ReactNode, Suspense } from 'react';
import { FormattedMessage } from 'react-intl';
import { common } from '../i18n/common';
import { reportError } from '../lib/report-errors';

export const CHUNK_TIMEOUT_MS = 120_000;

export class ChunkLoadError extends Error {
  constructor(
    public chunk: string,
    public css: boolean,
  ) {
    super(`${css ? 'Loading CSS chunk' : 'Loading chunk'} ${chunk} failed`);
  }
}

export function withTimeout<T>(p: Promise<T>, name: string, ms = CHUNK_TIMEOUT_MS): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ChunkLoadError(name, false)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        const css = e instanceof Error && /css/i.test(e.message);
        reject(new ChunkLoadError(name, css));
      },
    );
  });
}

export function screen(name: string, load: () => Promise<{ default: ComponentType }>) {
  return lazy(() => withTimeout(load(), name));
}

interface BoundaryState {
  error: ChunkLoadError | null;
}

export class ChunkBoundary extends Component<{ children: ReactNode }, BoundaryState> {
  state: BoundaryState = { error: null };
  static getDerivedStateFromError(error: unknown): BoundaryState {
    return { error: error instanceof ChunkLoadError ? error : new ChunkLoadError('main', false) };
  }
  // A chunk that cannot load (a build replaced under an open tab, a network fault) is worth
  // knowing about: reported like any route error.
  componentDidCatch(error: unknown) {
    reportError('route', error);
  }
  render() {
    const e = this.state.error;
    if (!e) return this.props.children;
    return (
      <div role="alert" className="chunk-error">
        <p>
          <FormattedMessage {...(e.css ? common.cssChunkFailed : common.chunkFailed)} values={{ name: e.chunk }} />
        </p>
        <button type="button" onClick={() => window.location.reload()}>
          <FormattedMessage {...common.retry} />
        </button>
      </div>
    );
  }
}

export function Loading() {
  return (
    <p className="loading" aria-live="polite">
      <FormattedMessage {...common.loading} />
    </p>
  );
}

export function Lazy({ children }: { children: ReactNode }) {
  return (
    <ChunkBoundary>
      <Suspense fallback={<Loading />}>{children}</Suspense>
    </ChunkBoundary>
  );
}
