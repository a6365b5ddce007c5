// JSON values of any depth: kube-apiserver decodes objects nested up to 10,000 levels, deeper than recursive code
// can walk on the main thread's stack. Each helper here loops with an explicit stack instead.
export { cloneJson, copyJson } from './clone.js';
export type { CopyOptions } from './clone.js';
export { diffJson } from './diff.js';
export type { DiffOperation } from './diff.js';
export { equalJson } from './equal.js';
export { stringifyJson } from './stringify.js';
export { copyObject, ownValue, setOwn } from './own.js';
