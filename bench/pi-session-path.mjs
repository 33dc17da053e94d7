/**
 * pi's own path from a session file to what the model receives, as one process of the session bench:
 * `SessionManager.open` + `buildSessionContext` + `convertToLlm` + `JSON.stringify(…, null, 2)` to
 * stdout, the work `convert-to-llm --json <file>` does. Run with the Node that pi line needs.
 *
 * Usage: node bench/pi-session-path.mjs <@mariozechner | @earendil-works> <file.jsonl>
 */
const [scope, file] = process.argv.slice(2);
const { SessionManager, convertToLlm } = await import(`${scope}/pi-coding-agent`);
const manager = SessionManager.open(file);
const { messages } = manager.buildSessionContext();
process.stdout.write(`${JSON.stringify(convertToLlm(messages), null, 2)}\n`);
