// Benchmark baseline (a): a bare Node HTTPS server that reads the request body, runs JSON.parse on it and answers a
// fixed, allowed AdmissionReview — what any webhook must do at least, with the admission listener's socket options.
// Started by bench/run.ts as a child process: node dist/bench/bare-server.js <port> <cert> <key> <uid>
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const [portArg, certFile, keyFile, uid] = process.argv.slice(2);
const answer = Buffer.from(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: true } }));

const server = createServer({ cert: readFileSync(certFile!), key: readFileSync(keyFile!), keepAlive: true, noDelay: true }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request?: { uid?: string } };
    res.writeHead(review.request?.uid === uid ? 200 : 400, { 'Content-Type': 'application/json', 'Content-Length': answer.length });
    res.end(answer);
  });
});
server.keepAliveTimeout = 120_000;
server.listen(Number(portArg), '127.0.0.1', () => {
  process.stdout.write('listening\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
