/**
 * The extension's `redactSecrets` with values known to be secret: settings.json's
 * `{ "env", "envFiles", "values" }` (or the flag's `redactSecrets=env`), `.env` paths taken from pi's
 * working directory, a file that cannot be read withholding the request with the file named, and one
 * numbering of placeholders for the requests and pi 0.73.1's system prompt.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createHost } from "../../src/pi/host.js";
import type { PiExtensionApi } from "../../src/pi/pi-api.js";
import { createReporter } from "../../src/pi/report.js";
import { convertRequest, WITHHELD_TEXT } from "../../src/pi/request.js";
import { DEFAULT_HARDENING, hardeningText, type PiHardening, readHardening } from "../../src/pi/settings.js";
import { systemPromptGuard } from "../../src/pi/system-prompt.js";
import { recordingCtx } from "../support/pi-context.js";

function piReading(flag: unknown, settings?: unknown): PiExtensionApi {
	const pi = { getFlag: () => flag } as unknown as PiExtensionApi;
	if (settings !== undefined) pi.getSettings = () => settings;
	return pi;
}
const on = (switches: Partial<PiHardening>): PiHardening => ({ ...DEFAULT_HARDENING, ...switches });
const pi = piReading(undefined);

/** Values no secretlint rule knows: only an exact-value source finds them. */
const FILE_SECRET = "plain-looking-value-4d1f9a";
const LOCAL_SECRET = "another-plain-value-88c2e7";
const ENV_SECRET = "env-plain-value-0b7e31c5";
const GIVEN_SECRET = "given-plain-value-f00d42";
const ENV_NAME = "CONVERT_TO_LLM_TEST_API_TOKEN";

let cwd: string;

beforeAll(() => {
	// pi's working directory, not the test's: paths are taken from it.
	cwd = mkdtempSync(join(tmpdir(), "convert-to-llm-pi-known-"));
	writeFileSync(join(cwd, ".env"), `DATABASE_PASSWORD=${FILE_SECRET}\nPORT=8080\n`);
	writeFileSync(join(cwd, ".env.local"), `STRIPE_KEY="${LOCAL_SECRET}"\n`);
	writeFileSync(join(cwd, ".env.example"), "DATABASE_PASSWORD=example-not-a-secret\n");
	mkdirSync(join(cwd, "config"));
	writeFileSync(join(cwd, "config", "prod.env"), `ADMIN_SECRET=${LOCAL_SECRET}\n`);
});

afterAll(() => rmSync(cwd, { recursive: true, force: true }));

afterEach(() => {
	delete process.env[ENV_NAME];
});

const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 }) as AgentMessage;
const toolTurn = (text: string): AgentMessage[] => [
	user("run it"),
	{
		role: "assistant",
		content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "cat notes" } }],
		api: "openai-completions",
		provider: "p",
		model: "m",
		usage: {
			input: 0,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
		stopReason: "toolUse",
		timestamp: 2,
	} as AgentMessage,
	{
		role: "toolResult",
		toolCallId: "c1",
		toolName: "bash",
		content: [{ type: "text", text }],
		isError: false,
		timestamp: 3,
	} as AgentMessage,
	user("thanks"),
];

/** One request through a host configured with `switches` at pi's working directory; its body as JSON and what was shown. */
async function request(switches: PiHardening, history: AgentMessage[]) {
	const host = createHost(pi, switches);
	host.configure(switches, cwd);
	const { ctx, shown, aborted } = recordingCtx();
	const result = await convertRequest(host, createReporter(), history, ctx);
	return { body: JSON.stringify(result.messages), shown: shown.map((notice) => notice.text), aborted: aborted() };
}

describe("readHardening's redactSecrets sources", () => {
	it.each([
		[
			"an object of sources in settings.json",
			undefined,
			{ redactSecrets: { env: true, envFiles: [".env", ".env.local"], values: ["abc"] } },
			{ env: true, envFiles: [".env", ".env.local"], values: ["abc"] },
		],
		["envFiles: true", undefined, { redactSecrets: { envFiles: true } }, { envFiles: true }],
		["redactSecrets=env in the flag", "redactSecrets=env", undefined, { env: true, envFiles: true }],
		[
			"the bare flag, which keeps the settings' sources",
			"redactSecrets",
			{ redactSecrets: { envFiles: [".env"] } },
			{ envFiles: [".env"] },
		],
	])("should read %s, and turn redaction on", (_name, flag, settings, expected) => {
		const { hardening, problems } = readHardening(
			piReading(flag, settings === undefined ? undefined : { convertToLlm: settings }),
		);
		expect(problems).toEqual([]);
		expect(hardening.redactSecrets).toBe(true);
		expect(hardening.redactKnown).toEqual(expected);
	});

	it("should forget the sources when the flag turns redaction off", () => {
		const { hardening } = readHardening(
			piReading("redactSecrets=false", { convertToLlm: { redactSecrets: { env: true } } }),
		);
		expect(hardening.redactSecrets).toBe(false);
		expect(hardening.redactKnown).toBeUndefined();
	});

	it.each([
		["a path given as a string", { envFiles: ".env" }, 'takes "envFiles": true, false or a list of paths'],
		["an empty value", { values: ["x", ""] }, 'takes "values": a list of non-empty strings'],
		["env as a string", { env: "yes" }, 'takes "env": true or false'],
		["a misspelled source", { enf: true }, 'has no option "enf" (did you mean "env"?)'],
	])(
		"should report %s as a problem that withholds requests, and leave redaction as it was",
		(_name, value, problem) => {
			const { hardening, problems } = readHardening(
				piReading(undefined, { convertToLlm: { redactSecrets: value } }),
			);
			expect(problems).toHaveLength(1);
			expect(problems[0]).toContain(`settings "convertToLlm.redactSecrets"`);
			expect(problems[0]).toContain(problem);
			expect(problems[0]).toContain("every request is withheld until it is fixed");
			expect(hardening.redactSecrets).toBeUndefined();
		},
	);

	it("should show the sources in /llm-context's header", () => {
		expect(hardeningText(on({ redactSecrets: true }))).toBe("redactSecrets");
		expect(
			hardeningText(on({ redactSecrets: true, redactKnown: { env: true, envFiles: [".env"], values: ["a", "b"] } })),
		).toBe("redactSecrets (env, .env, 2 values)");
		expect(hardeningText(on({ redactSecrets: true, redactKnown: { env: true, envFiles: true } }))).toBe(
			"redactSecrets (env, .env*)",
		);
	});
});

describe("createHost's redactSecrets sources", () => {
	it("should replace the values of listed .env files, found from pi's working directory, also base64-encoded", async () => {
		const encoded = Buffer.from(FILE_SECRET).toString("base64");
		const { body, aborted } = await request(
			on({ redactSecrets: true, redactKnown: { envFiles: [".env", "config/prod.env"] } }),
			toolTurn(`password ${FILE_SECRET}, encoded ${encoded}, admin ${LOCAL_SECRET}, port 8080`),
		);
		expect(aborted).toBe(0);
		expect(body).not.toContain(FILE_SECRET);
		expect(body).not.toContain(encoded);
		expect(body).not.toContain(LOCAL_SECRET);
		expect(body).toContain("[REDACTED:database-password#1]");
		expect(body).toContain("port 8080");
	});

	it("should read every .env* file of pi's working directory with envFiles: true, and the environment with env: true", async () => {
		process.env[ENV_NAME] = ENV_SECRET;
		const { body } = await request(
			on({ redactSecrets: true, redactKnown: { env: true, envFiles: true, values: [GIVEN_SECRET] } }),
			toolTurn(`${FILE_SECRET} ${LOCAL_SECRET} ${ENV_SECRET} ${GIVEN_SECRET} example-not-a-secret`),
		);
		for (const secret of [FILE_SECRET, LOCAL_SECRET, ENV_SECRET, GIVEN_SECRET]) expect(body).not.toContain(secret);
		expect(body).toContain("[REDACTED:convert-to-llm-test-api-token#1]");
		expect(body).toContain("[REDACTED:secret#1]");
		// .env.example shows the shape of an .env, not its values.
		expect(body).toContain("example-not-a-secret");
	});

	it("should withhold the request, naming the file, when a listed .env file cannot be read", async () => {
		const { body, shown, aborted } = await request(
			on({ redactSecrets: true, redactKnown: { envFiles: [".env", ".env.missing"] } }),
			toolTurn(`password ${FILE_SECRET}`),
		);
		expect(aborted).toBe(1);
		expect(body).not.toContain(FILE_SECRET);
		expect(body).toContain(WITHHELD_TEXT);
		expect(shown.join("\n")).toContain(join(cwd, ".env.missing"));
	});

	it("should number a known secret in the system prompt and in the messages with one placeholder (pi 0.73.1's guard uses the requests' plugin)", async () => {
		const switches = on({ redactSecrets: true, redactKnown: { envFiles: [".env"] } });
		const host = createHost(pi, switches);
		host.configure(switches, cwd);
		const { ctx } = recordingCtx();
		const guard = systemPromptGuard(host, createReporter(), 10_000);
		const prompt = await guard.handle({ systemPrompt: `AGENTS.md: the db password is ${FILE_SECRET}` }, ctx);
		expect(prompt).toEqual({ systemPrompt: "AGENTS.md: the db password is [REDACTED:database-password#1]" });
		const result = await convertRequest(host, createReporter(), [user(`is it ${FILE_SECRET}?`)], ctx);
		expect(JSON.stringify(result.messages)).toContain("is it [REDACTED:database-password#1]?");
		expect(host.redaction()).toBe(host.build().redaction);
	});
});
