// What Piscina loads in each policy worker thread: a CommonJS module that imports the worker (policy-worker.ts).
// Piscina loads a worker file with require() first and falls back to import(); on Node 20.19+ require() of an ES
// module succeeds (require(esm)), and a thread terminated while that load is in progress (a pool closed or a worker
// replaced during start-up) aborts the whole process: "Assertion failed: facade->InstantiateModule(context,
// LinkRequireFacadeWithOriginal)" in ModuleWrap::CreateRequiredModuleFacade. Loaded through import() the worker
// is never require()d. Piscina awaits a handler that is a promise (`__esModule` keeps its names as they are).
const worker = import('./policy-worker.js');
export = {
  __esModule: true,
  default: worker.then((m) => m.default),
  review: worker.then((m) => m.review),
};
