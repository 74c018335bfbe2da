// A client on the official TypeScript SDK (@modelcontextprotocol/sdk, the 1.x line most
// desktop and IDE clients use), driven by tests/mcp/test_typescript_client.py: it runs the
// steps it is given against `lethe mcp` (stdio or HTTP) and prints one JSON line per step,
// what the SDK handed the client, so that the test asserts what such a client really sees.
//
// node ts_client.mjs SDK_DIR SPEC_JSON
//   SPEC: {"transport": {"command": ..., "args": [...]} | {"url": ...},
//          "elicit": "accept" | "decline" | null, "steps": [{"list": true} | {"call": TOOL,
//          "args": {...}}]}
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [sdk, specPath] = process.argv.slice(2);
const spec = JSON.parse(readFileSync(specPath, "utf8"));
const load = (part) => import(pathToFileURL(join(sdk, "dist", "esm", part)).href);
const { Client } = await load("client/index.js");
const { ElicitRequestSchema } = await load("types.js");

let transport;
if (spec.transport.url) {
  const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
  transport = new StreamableHTTPClientTransport(new URL(spec.transport.url));
} else {
  const { StdioClientTransport } = await load("client/stdio.js");
  transport = new StdioClientTransport({
    command: spec.transport.command,
    args: spec.transport.args,
    env: spec.transport.env,
    stderr: "ignore",
  });
}

const capabilities = spec.elicit ? { elicitation: {} } : {};
const client = new Client({ name: "lethe-ts-test", version: "1.0.0" }, { capabilities });
const asked = [];
if (spec.elicit) {
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return spec.elicit === "accept"
      ? { action: "accept", content: { confirm: true } }
      : { action: spec.elicit };
  });
}

await client.connect(transport);
for (const step of spec.steps) {
  let out;
  try {
    if (step.list) {
      const listed = await client.listTools();
      out = { tools: listed.tools.map((t) => t.name) };
    } else {
      const result = await client.callTool({ name: step.call, arguments: step.args ?? {} });
      out = { result };
    }
  } catch (error) {
    out = { thrown: { code: error.code ?? null, message: String(error.message) } };
  }
  out.asked = asked.splice(0);
  process.stdout.write(JSON.stringify(out) + "\n");
}
await client.close();
