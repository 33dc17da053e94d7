/**
 * A loopback OpenAI-compatible endpoint (`POST /v1/chat/completions`, streamed) for the pi CLI
 * end-to-end tests: it listens on 127.0.0.1 only, answers each request from a script, records every
 * request body as the bytes pi sent, and closes itself once it has been idle for a while even if a
 * test forgets to (idle, not since it started: a file of many pi runs on a busy machine takes
 * minutes, and must not find its provider gone halfway).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted answer: text, or tool calls (`arguments` as an object, sent as JSON). */
export type FakeReply =
	| { text: string }
	| { toolCalls: readonly { id: string; name: string; arguments: Record<string, unknown> }[] };

/** Chooses the answer to a request from its parsed body and its position (0-based). */
export type FakeScript = (body: ChatBody, index: number) => FakeReply;

/** The parts of an OpenAI chat-completions body the scripts look at. */
export interface ChatBody {
	model?: string;
	messages: { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }[];
	tools?: unknown[];
}

export interface FakeProvider {
	/** `http://127.0.0.1:<port>/v1` */
	baseUrl: string;
	/** Each request body, as received (a string of the bytes pi sent). */
	readonly bodies: string[];
	close(): Promise<void>;
}

/** Starts the endpoint; it closes itself after `idleMs` (default 10 minutes) without a request. */
export async function startFakeProvider(script: FakeScript, idleMs = 600_000): Promise<FakeProvider> {
	const bodies: string[] = [];
	let timer: NodeJS.Timeout | undefined;
	const idle = (): void => {
		clearTimeout(timer);
		timer = setTimeout(() => server.close(), idleMs);
		timer.unref();
	};
	const server = createServer((request, response) => {
		idle();
		void handle(request, response, script, bodies);
	});
	await new Promise<void>((resolve, reject) => {
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => resolve());
	});
	idle();
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		bodies,
		close: () =>
			new Promise<void>((resolve) => {
				clearTimeout(timer);
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

async function handle(
	request: IncomingMessage,
	response: ServerResponse,
	script: FakeScript,
	bodies: string[],
): Promise<void> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	if (request.method !== "POST" || !request.url?.endsWith("/chat/completions")) {
		response.writeHead(404, { "content-type": "application/json" });
		response.end(JSON.stringify({ error: { message: `no route ${request.method} ${request.url}` } }));
		return;
	}
	const raw = Buffer.concat(chunks).toString("utf8");
	const index = bodies.length;
	bodies.push(raw);
	let reply: FakeReply;
	try {
		reply = script(JSON.parse(raw) as ChatBody, index);
	} catch (error) {
		response.writeHead(500, { "content-type": "application/json" });
		response.end(JSON.stringify({ error: { message: `fake script failed: ${String(error)}` } }));
		return;
	}
	response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
	// Usage as a provider counts it, roughly: a token per 4 bytes of the request, so that pi's
	// automatic compaction sees the context grow and shrink as it would with a real model.
	const promptTokens = Math.ceil(raw.length / 4);
	for (const event of sse(reply, index, promptTokens)) response.write(`data: ${JSON.stringify(event)}\n\n`);
	response.end("data: [DONE]\n\n");
}

function* sse(reply: FakeReply, index: number, promptTokens: number): Generator<unknown> {
	const base = { id: `chatcmpl-${index}`, object: "chat.completion.chunk", created: 1_700_000_000, model: "fake" };
	const choice = (delta: unknown, finish: string | null) => ({
		...base,
		choices: [{ index: 0, delta, finish_reason: finish }],
	});
	if ("text" in reply) {
		yield choice({ role: "assistant", content: reply.text }, null);
		yield choice({}, "stop");
	} else {
		yield choice({ role: "assistant", content: null }, null);
		for (let i = 0; i < reply.toolCalls.length; i++) {
			const call = reply.toolCalls[i] as (typeof reply.toolCalls)[number];
			yield choice(
				{
					tool_calls: [
						{
							index: i,
							id: call.id,
							type: "function",
							function: { name: call.name, arguments: JSON.stringify(call.arguments) },
						},
					],
				},
				null,
			);
		}
		yield choice({}, "tool_calls");
	}
	const usage = { prompt_tokens: promptTokens, completion_tokens: 5, total_tokens: promptTokens + 5 };
	yield { ...base, choices: [], usage };
}
