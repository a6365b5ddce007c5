#!/usr/bin/env -S node --no-memory-reducer
// The executable's entry point: refuses an older Node in one line before any other module is loaded. It imports
// nothing statically, because an ES module's imports are all parsed and linked before its first statement runs, and
// a dependency's newer syntax or globals (`??`, `File`) then fail on an old Node with a stack trace instead. What it
// does itself every Node that loads ES modules parses (12 and later: Ubuntu 22.04's 12, RHEL 9's 16, Debian 12's 18):
// no `?.`, `??` or top-level await.
//
// The `#!` line starts node without V8's memory reducer, the one V8 setting a running process cannot change for its
// main thread (cmd/engine.ts says why it matters); bench/util.ts's executableArgv reads the flags from this line.

/** The oldest Node this daemon runs on: package.json's "engines" (test/cli/node-version.test.ts keeps them equal). */
const REQUIRED_NODE = '20.19';

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const [needMajor = 0, needMinor = 0] = REQUIRED_NODE.split('.').map(Number);
if (major < needMajor || (major === needMajor && minor < needMinor)) {
  process.stderr.write(
    'static-admissiond: needs Node.js >= ' + REQUIRED_NODE + ', but ' + process.execPath + ' is ' + process.version + '\n',
  );
  process.exitCode = 1;
} else {
  import('./engine.js')
    .then((engine) => {
      engine.tuneEngine(process.execArgv);
      return import('./run.js');
    })
    .then((entry) => entry.run());
}
