// Evaluation speed of lib/cel on typical admission expressions (the ones of ../shared's engine comparison), with a
// prepared activation: median ns per evaluate() over batches after a warm-up.
//
//   npm run build && node dist/tools/cel-conformance/bench.js



import { pathToFileURL } from "node:url";
import { compileExpression, prepareActivation } from '../../lib/cel/index.js';

const POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'shop', labels: { app: 'web', team: 'payments', tier: 'frontend', env: 'prod', version: 'v1' } },
  spec: {
    securityContext: { runAsNonRoot: true },
    containers: [
      { name: 'app', image: 'registry.example.com/web:1.2', securityContext: { privileged: false } },
      { name: 'sidecar', image: 'registry.example.com/proxy:2.0' },
      { name: 'logger', image: 'registry.example.com/log:3.1', securityContext: { readOnlyRootFilesystem: true } },
    ],
  },
};
const DEPLOYMENT = { kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 3 } };

export const CASES: readonly { name: string; expression: string; object: object }[] = [
  {
    name: 'no-privileged',
    expression: '!object.spec.containers.exists(c, has(c.securityContext) && has(c.securityContext.privileged) && c.securityContext.privileged == true)',
    object: POD,
  },
  { name: 'labels-all-startsWith', expression: "object.metadata.labels.all(k, k.startsWith('app'))", object: POD },
  { name: 'image-regex', expression: "object.spec.containers.all(c, c.image.matches('^registry.example.com/.*$'))", object: POD },
  { name: 'has-label-in', expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", object: POD },
  { name: 'replicas-le-5', expression: 'object.spec.replicas <= 5', object: DEPLOYMENT },
  {
    name: 'message-concat',
    expression: "'Deployment ' + object.metadata.name + ' in ' + object.metadata.namespace + ' has ' + string(object.spec.replicas) + ' replicas, max is 5'",
    object: DEPLOYMENT,
  },
  { name: 'quantity-compare', expression: "quantity('1Gi').isGreaterThan(quantity('512Mi'))", object: POD },
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export function bench(expression: string, object: object, budgetMs = 200): number {
  const result = compileExpression({ expression, environment: 'validatingPolicy' });
  if (!result.ok) throw new Error(result.message);
  const activation = prepareActivation({ object, oldObject: null, request: {}, params: null, namespaceObject: null });
  const run = result.compiled;
  const batch = 2000;
  const start = performance.now();
  while (performance.now() - start < 50) for (let i = 0; i < batch; i++) run.evaluate(activation);
  const samples: number[] = [];
  const t0 = performance.now();
  while (performance.now() - t0 < budgetMs) {
    const s = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) run.evaluate(activation);
    samples.push(Number(process.hrtime.bigint() - s) / batch);
  }
  return median(samples);
}

function main(): void {
  console.log(`Node ${process.version}`);
  console.log('| expression | eval (median) |');
  console.log('|---|---|');
  for (const c of CASES) console.log(`| ${c.name} | ${(bench(c.expression, c.object) / 1000).toFixed(2)} µs |`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
