// An MCP server for the project's tests, written with the official SDK:
// stdio by default, Streamable HTTP with --http, SSE with --sse. Its tools
// and its faults are chosen by flags, so one program plays every server a
// test needs (a crash mid-call, a server that never answers, one that fails
// to start, one that ignores SIGTERM and leaves a grandchild behind).
//
//   node testServer.mjs [--name N] [--pidfile F] [--grandchild F] [--ignore-term]
//                       [--fail MESSAGE] [--silent] [--slow MS] [--calls F]
//                       [--stderr-env NAME] [--stderr-file F] [--leave-child F]
//                       [--http 0 --portfile F | --sse 0 --portfile F]
import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { z } from 'zod';

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const option = (name) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};

const name = option('name') ?? 'test-server';
if (option('pidfile')) writeFileSync(option('pidfile'), String(process.pid));
if (flag('ignore-term')) process.on('SIGTERM', () => process.stderr.write('ignoring SIGTERM\n'));
if (option('grandchild')) {
  // A process the server starts and never stops: only its process group takes it down.
  const child = spawn(process.execPath, ['-e', `require('node:fs').writeFileSync(${JSON.stringify(option('grandchild'))}, String(process.pid)); setInterval(() => {}, 1000);`], { stdio: 'ignore' });
  child.unref();
}
// What a careless server prints: a variable it was given, a file it read.
if (option('stderr-env')) process.stderr.write(`${option('stderr-env')}=${process.env[option('stderr-env')]}\n`);
if (option('stderr-file')) process.stderr.write((await import('node:fs')).readFileSync(option('stderr-file'), 'utf8'));
if (option('leave-child')) {
  // Never answers, and exits at once, leaving a child that holds its pipes (stdin, stdout, stderr) open; its pid is
  // written before the exit, so whoever reads the file finds the child however slowly it starts.
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000);'], { stdio: 'inherit' });
  writeFileSync(option('leave-child'), String(child.pid));
  child.unref();
  process.exit(0);
}
if (option('fail')) {
  process.stderr.write(`${option('fail')}\n`);
  process.exit(2);
}
if (flag('silent')) {
  // Reads its input and never answers: a server that hangs in its handshake.
  process.stdin.resume();
  setInterval(() => {}, 1000);
} else {
  await new Promise((resolve) => setTimeout(resolve, Number(option('slow') ?? 0)));
  await serve();
}

function record(tool, args) {
  if (option('calls')) appendFileSync(option('calls'), `${JSON.stringify({ server: name, tool, args, pid: process.pid })}\n`);
}

function build() {
  const server = new McpServer({ name, version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  const text = (value) => ({ content: [{ type: 'text', text: value }] });
  server.registerTool('echo', { description: 'Echoes its text back.', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } }, async ({ text: t }) => {
    record('echo', { text: t });
    return text(`${name} echoes: ${t}`);
  });
  server.registerTool('note', { description: 'Writes a note (changes state).', inputSchema: { text: z.string() } }, async ({ text: t }) => {
    record('note', { text: t });
    return text(`${name} noted: ${t}`);
  });
  server.registerTool('env', { description: 'Tells the value of an environment variable.', inputSchema: { variable: z.string() }, annotations: { readOnlyHint: true } }, async ({ variable }) => {
    record('env', { variable });
    return text(process.env[variable] === undefined ? `${variable} is unset` : `${variable}=${process.env[variable]}`);
  });
  server.registerTool('crash', { description: 'Exits in the middle of the call.', inputSchema: {}, annotations: { readOnlyHint: true } }, async () => {
    record('crash', {});
    process.stderr.write('about to crash on purpose\n');
    setTimeout(() => process.exit(3), 20);
    return new Promise(() => {});
  });
  server.registerTool('hang', { description: 'Never answers.', inputSchema: {}, annotations: { readOnlyHint: true } }, async () => {
    record('hang', {});
    return new Promise(() => {});
  });
  server.registerTool('big', { description: 'Returns a long text.', inputSchema: { chars: z.number() }, annotations: { readOnlyHint: true } }, async ({ chars }) => text('x'.repeat(chars)));
  server.registerTool('fails', { description: 'Reports an error.', inputSchema: {}, annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: 'text', text: 'the widget is broken' }], isError: true }));
  server.registerTool('grow', { description: 'Adds a tool named fresh and announces the change.', inputSchema: {}, annotations: { readOnlyHint: true } }, async () => {
    if (!server.isConnected()) return text('not connected');
    server.registerTool('fresh', { description: 'Appeared later.', inputSchema: {}, annotations: { readOnlyHint: true } }, async () => text(`${name} fresh tool`));
    server.sendToolListChanged();
    return text('grew a tool');
  });
  return server;
}

async function serve() {
  if (option('http') !== undefined || option('sse') !== undefined) return serveHttp(option('sse') !== undefined);
  await build().connect(new StdioServerTransport());
}

async function serveHttp(sse) {
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    try {
      if (sse) {
        if (req.method === 'GET') {
          const transport = new SSEServerTransport('/messages', res);
          sessions.set(transport.sessionId, transport);
          res.on('close', () => sessions.delete(transport.sessionId));
          await build().connect(transport);
          return;
        }
        const id = new URL(req.url, 'http://x').searchParams.get('sessionId');
        const transport = sessions.get(id);
        if (!transport) return res.writeHead(404).end('no session');
        return transport.handlePostMessage(req, res);
      }
      const id = req.headers['mcp-session-id'];
      let transport = id ? sessions.get(id) : undefined;
      if (!transport) {
        if (req.headers.authorization !== undefined) process.stderr.write(`authorization: ${req.headers.authorization}\n`);
        if (option('token') && req.headers.authorization !== `Bearer ${option('token')}`) return res.writeHead(401).end('unauthorized');
        transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => sessions.set(sid, transport) });
        await build().connect(transport);
      }
      await transport.handleRequest(req, res);
    } catch (error) {
      process.stderr.write(`${error.stack}\n`);
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  http.listen(Number(option('http') ?? option('sse') ?? 0), '127.0.0.1', () => {
    if (option('portfile')) writeFileSync(option('portfile'), String(http.address().port));
  });
}
