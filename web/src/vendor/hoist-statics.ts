// react-intl keeps its context in the module of `injectIntl`, which imports
// hoist-non-react-statics (and through it react-is, about 1 KB gzipped) at the top: the context
// drags both into the entry chunk although Ciam never calls `injectIntl` (a test in
// src/vendor/hoist-statics.test.ts keeps it so). The build aliases the package to this: the
// one call site, `injectIntl(..., {forwardRef: true})`, would get its wrapper back unchanged.
export default function hoistNonReactStatics<T>(target: T): T {
  return target;
}
