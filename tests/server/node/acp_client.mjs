// One end-to-end run of coder-tui's ACP agent by the official TypeScript SDK's client (@agentclientprotocol/sdk,
// whose zod schemas check every message): initialize, session/new, a prompt with a permission request, a cancel
// then a prompt at once, session/list. Prints one JSON summary line; any schema error or failure exits non-zero.
// Usage: node acp_client.mjs <python> <workspace>   (the environment points the agent at the scripted model)
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [python, workspace] = process.argv.slice(2);
const child = spawn(python, ["-m", "coder_tui", "acp"], { cwd: workspace, stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const updates = [];
const permissions = [];
const app = acp
  .client()
  .onNotification("session/update", (context) => {
    updates.push(context.params.update.sessionUpdate);
  })
  .onRequest("session/request_permission", (context) => {
    permissions.push(context.params.toolCall.title);
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  });
const connection = app.connect(stream);
const agent = connection.agent;
try {
  const hello = await agent.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  const session = await agent.request("session/new", { cwd: workspace, mcpServers: [] });
  const first = await agent.request("session/prompt", {
    sessionId: session.sessionId, prompt: [{ type: "text", text: "fix calc.py" }],
  });
  const before = updates.length;
  const long = agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "long" }] });
  while (!updates.slice(before).includes("agent_message_chunk")) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await agent.notify("session/cancel", { sessionId: session.sessionId });
  const next = agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "next" }] });
  const [cancelled, answered] = await Promise.all([long, next]);
  const listed = await agent.request("session/list", { cwd: workspace });
  console.log(JSON.stringify({
    agent: hello.agentInfo.name,
    image: hello.agentCapabilities.promptCapabilities.image,
    stops: [first.stopReason, cancelled.stopReason, answered.stopReason],
    permissions,
    kinds: [...new Set(updates)].sort(),
    listed: listed.sessions.map((s) => s.sessionId).includes(session.sessionId),
  }));
  child.stdin.end();
  process.exit(0);
} catch (error) {
  console.error(`ACP client failed: ${error?.stack ?? error}`);
  child.kill();
  process.exit(1);
}
