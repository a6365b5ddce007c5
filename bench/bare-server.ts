// Benchmark baseline (a): a bare Node HTTPS server that reads the request body and answers a fixed, allowed
// AdmissionReview — the cost of HTTPS + HTTP/1.1 keep-alive alone, with the admission listener's socket options.
// Started by bench/run.ts as a child process: node dist/bench/bare-server.js <port> <cert> <key> <uid>
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const [portArg, certFile, keyFile, uid] = process.argv.slice(2);
const answer = Buffer.from(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: true } }));

const server = createServer({ cert: readFileSync(certFile!), key: readFileSync(keyFile!), keepAlive: true, noDelay: true }, (req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': answer.length });
    res.end(answer);
  });
});
server.keepAliveTimeout = 120_000;
server.listen(Number(portArg), '127.0.0.1', () => {
  process.stdout.write('listening\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
