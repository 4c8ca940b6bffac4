// Loaded with `node --import` into a `mem hook claude-code prompt` process by hooks.mjs --trace: marks when this
// process reached its first line of JavaScript, started and ended each git process, asked each daemon (by the root it
// asked for), had its answer, and wrote the hook's output, and prints them on stderr as one `TRACE {...}` line at exit
// (ms since the process started). A support module: measures nothing by itself.
import childProcess from 'node:child_process';
import { writeSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { promisify } from 'node:util';

const at = () => Math.round(performance.now() * 10) / 10;
const trace = { started: at(), git: [], asks: [] };
const execFile = childProcess.execFile;
const gitRun = (child) => {
  const run = { spawned: at() };
  trace.git.push(run);
  child.once('exit', () => (run.exited = at()));
};
childProcess.execFile = function traced(...args) {
  const child = execFile.apply(this, args);
  gitRun(child);
  return child;
};
// The CLI runs git through promisify(execFile), which takes execFile's own promise form: traced the same way.
const promised = execFile[promisify.custom];
childProcess.execFile[promisify.custom] = (...args) => {
  const answer = promised(...args);
  gitRun(answer.child);
  return answer;
};
const connect = net.connect;
net.connect = net.createConnection = function traced(...args) {
  const ask = { called: at() };
  trace.asks.push(ask);
  const socket = connect.apply(this, args);
  const end = socket.end;
  // The request names the root it asks about: that tells the project's question from the person's.
  socket.end = function sent(text, ...rest) {
    try {
      const request = JSON.parse(String(text));
      ask.root = request.root;
      ask.op = request.op;
    } catch {
      // not a daemon request
    }
    return end.call(this, text, ...rest);
  };
  socket.once('connect', () => (ask.connected = at()));
  socket.once('data', () => (ask.answered = at()));
  return socket;
};
// The CLI's `import { connect } from 'node:net'` (and execFile) bind the exports as they are now.
syncBuiltinESMExports();
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (...args) => {
  trace.writing ??= at();
  return write(...args);
};
process.on('exit', () => {
  trace.exit = at();
  writeSync(2, `TRACE ${JSON.stringify(trace)}\n`);
});
