// Loaded with `node --import` into a `mem search` process by search-latency.mjs: marks when this process reached its
// first line of JavaScript, asked the daemon's socket, had the answer and wrote the result, and prints them on stderr
// as one `TRACE {...}` line at exit (ms since the process started). A support module: measures nothing by itself.
import { writeSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

const marks = { started: performance.now() };
const connect = net.connect;
net.connect = net.createConnection = function traced(...args) {
  marks.connectCalled ??= performance.now();
  const socket = connect.apply(this, args);
  socket.once('connect', () => (marks.connected ??= performance.now()));
  socket.once('data', () => (marks.answered ??= performance.now()));
  return socket;
};
// The CLI's `import { connect } from 'node:net'` binds the exports as they are now.
syncBuiltinESMExports();
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (...args) => {
  marks.writing ??= performance.now();
  const done = write(...args);
  marks.written ??= performance.now();
  return done;
};
process.on('exit', () => {
  marks.exit = performance.now();
  const rounded = Object.fromEntries(Object.entries(marks).map(([k, v]) => [k, Math.round(v * 10) / 10]));
  writeSync(2, `TRACE ${JSON.stringify(rounded)}\n`);
});
