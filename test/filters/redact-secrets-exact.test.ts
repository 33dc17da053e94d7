/**
 * Exact-value redaction: values known to be secret (a host's `values`, the environment's
 * secret-like variables, the `.env*` files) are replaced wherever they occur, as they are,
 * JSON-escaped, URL- or base64-encoded, and with invisible characters put inside them; nothing
 * else is ever replaced (no false positive by construction), and a value shorter than 8 characters
 * is not looked for.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { isSecretName, parseEnvFile } from "../../src/filters/known-secrets.js";
import { REDACT_SECRETS_PLUGIN, type RedactSecretsOptions, redactSecrets } from "../../src/filters/redact-secrets.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { user } from "../support/fixtures.js";

/** A secret no rule knows: an internal service's password. */
const SECRET = "Corvid-7f3b!pass/word+9z";
const PLACEHOLDER = /\[REDACTED:secret#1\]/;

async function sent(text: string, options: RedactSecretsOptions = { values: [SECRET] }): Promise<string> {
	const [message] = await createDefaultRegistry()
		.use(redactSecrets(options))
		.convertAsync([user(text)]);
	return message?.content as string;
}

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
const b64url = (text: string) => Buffer.from(text, "utf8").toString("base64url");

describe("redactSecrets exact values", () => {
	it.each([
		["as it is", `password=${SECRET}`],
		["JSON-escaped", JSON.stringify({ password: `"${SECRET}"\\` })],
		["URL-encoded", `https://api.acme.io/login?pw=${encodeURIComponent(SECRET)}&next=/`],
		[
			"URL-encoded with lower-case hex",
			`pw=${encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())}`,
		],
		["base64-encoded", `Authorization: Basic ${b64(`svc:${SECRET}`)}`],
		["base64-encoded at the second alignment", `blob ${b64(`x${SECRET}`)}`],
		["base64-encoded at the third alignment", `blob ${b64(`xy${SECRET}`)}`],
		["base64url-encoded", `token=${b64url(`{"p":"${SECRET}"}`)}`],
		["with zero-width joiners inside", `pw: ${[...SECRET].join("\u200d")}`],
		[
			"with a soft hyphen and a bidi override inside",
			`pw: ${SECRET.slice(0, 5)}\u00ad${SECRET.slice(5, 9)}\u202e${SECRET.slice(9)}`,
		],
		[
			"with a lone surrogate inside (pi-ai's providers drop those)",
			`pw: ${SECRET.slice(0, 6)}\ud800${SECRET.slice(6)}`,
		],
	])("should replace a known value %s", async (_form, text) => {
		const out = await sent(text);
		expect(out).toMatch(PLACEHOLDER);
		expect(out).not.toContain(SECRET);
		expect(out).not.toContain(b64(SECRET).slice(4, 20));
	});

	it("should replace a known value with any invisible characters put anywhere inside it", async () => {
		const invisible = fc.constantFrom(
			"\u200b",
			"\u200c",
			"\u200d",
			"\u2060",
			"\ufeff",
			"\u00ad",
			"\u202e",
			"\u2066",
			"\u180e",
			"\u{e0041}",
		);
		await fc.assert(
			fc.asyncProperty(
				fc.array(fc.tuple(fc.nat(SECRET.length), invisible), { minLength: 1, maxLength: 6 }),
				async (insertions) => {
					let text = SECRET;
					for (const [at, char] of [...insertions].sort((a, b) => b[0] - a[0]))
						text = text.slice(0, at) + char + text.slice(at);
					const out = await sent(`before ${text} after`);
					expect(out).toMatch(
						/^before (\p{Cf}|\p{Default_Ignorable_Code_Point})*\[REDACTED:secret#1\](\p{Cf}|\p{Default_Ignorable_Code_Point})* after$/u,
					);
				},
			),
			{ numRuns: 100 },
		);
	});

	it("should change nothing that is not an exact form of a known value", async () => {
		const near = fc.oneof(
			fc.nat(SECRET.length - 1).map((at) => SECRET.slice(0, at) + SECRET.slice(at + 1)),
			fc.nat(SECRET.length - 1).map((at) => `${SECRET.slice(0, at)}#${SECRET.slice(at + 1)}`),
			fc.string({ unit: fc.constantFrom(...SECRET, " ", "\n", "=", "%", "A", "Q"), maxLength: 80 }),
		);
		await fc.assert(
			fc.asyncProperty(fc.array(near, { minLength: 1, maxLength: 4 }), async (parts) => {
				const text = parts.join(" ");
				fc.pre(!text.includes(SECRET));
				expect(await sent(text)).toBe(text);
			}),
			{ numRuns: 150 },
		);
	});

	it("should look for a value of 8 characters or more, and not for a shorter one", async () => {
		expect(await sent("port 8080 and pin 1234567", { values: ["1234567"] })).toBe("port 8080 and pin 1234567");
		expect(await sent("pin 12345678", { values: ["12345678"] })).toBe("pin [REDACTED:secret#1]");
	});

	it("should read values given as a function on every conversion", async () => {
		let values = ["first-secret-value"];
		const registry = createDefaultRegistry().use(redactSecrets({ values: () => values }));
		await registry.convertAsync([user("nothing")]);
		values = ["second-secret-value"];
		const [message] = await registry.convertAsync([user("second-secret-value here")]);
		expect(message?.content).toBe("[REDACTED:secret#1] here");
	});

	it("should replace the values of an environment's variables with secret-like names, and leave the others", async () => {
		const env = {
			OPENAI_API_KEY: "proj-8a7sd6f5g4h3j2k1",
			DB_PASSWORD: "Tr0ub4dor&3-horse",
			NODE_ENV: "production",
			PWD: "/home/dana/project",
			SSH_KEY_PATH: "/home/dana/.ssh/id_ed25519",
			BROKER_URL: "amqp://app:amqp-pass-99x@mq.internal:5672/",
		};
		const text = Object.entries(env)
			.map(([name, value]) => `${name}=${value}`)
			.join("\n");
		expect(await sent(text, { env })).toBe(
			[
				"OPENAI_API_KEY=[REDACTED:openai-api-key#1]",
				"DB_PASSWORD=[REDACTED:db-password#1]",
				"NODE_ENV=production",
				"PWD=/home/dana/project",
				"SSH_KEY_PATH=/home/dana/.ssh/id_ed25519",
				"BROKER_URL=amqp://app:[REDACTED:broker-url-password#1]@mq.internal:5672/",
			].join("\n"),
		);
	});

	it("should read the process environment on every conversion with env: true", async () => {
		const registry = createDefaultRegistry().use(redactSecrets({ env: true }));
		process.env.CONVERT_TO_LLM_TEST_TOKEN = "tok-5d41402abc4b2a76";
		try {
			const [message] = await registry.convertAsync([user("echo tok-5d41402abc4b2a76")]);
			expect(message?.content).toBe("echo [REDACTED:convert-to-llm-test-token#1]");
		} finally {
			delete process.env.CONVERT_TO_LLM_TEST_TOKEN;
		}
	});

	it.each([
		["OPENAI_API_KEY", true],
		["GITHUB_TOKEN", true],
		["npmAuthToken", true],
		["STRIPE_SECRET", true],
		["PGPASSWORD", false],
		["PG_PASSWORD", true],
		["AWS_ACCESS_KEY_ID", true],
		["PRIVATE_KEY", true],
		["SSH_KEY_PATH", false],
		["GOOGLE_APPLICATION_CREDENTIALS", true],
		["KEYBOARD_LAYOUT", false],
		["PWD", false],
		["OLDPWD", false],
		["NODE_ENV", false],
		["PORT", false],
	])("should take %s as a secret-like name: %s", (name, secret) => {
		expect(isSecretName(name)).toBe(secret);
	});
});

describe("redactSecrets env files", () => {
	let dir: string | undefined;
	afterEach(() => {
		vi.restoreAllMocks();
		if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
		dir = undefined;
	});
	const folder = (files: Record<string, string>) => {
		dir = mkdtempSync(join(tmpdir(), "redact-env-"));
		for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
		return dir;
	};

	it("should replace the secret-like values of the .env files listed, read again on every conversion", async () => {
		const at = folder({ ".env": 'export API_KEY="k-1a2b3c4d5e6f"\nPORT=3000 # the port\n' });
		const registry = createDefaultRegistry().use(redactSecrets({ envFiles: [join(at, ".env")] }));
		const [first] = await registry.convertAsync([user("key k-1a2b3c4d5e6f on port 3000")]);
		expect(first?.content).toBe("key [REDACTED:api-key#1] on port 3000");
		writeFileSync(join(at, ".env"), "API_KEY=k-rotated-99887766\n");
		const [second] = await registry.convertAsync([user("now k-rotated-99887766")]);
		expect(second?.content).toBe("now [REDACTED:api-key#2]");
	});

	it("should read every .env* file of the working directory with envFiles: true, but not the examples", async () => {
		const at = folder({
			".env": "SESSION_SECRET=s3ss10n-s3cr3t-v4lue\n",
			".env.local": "STRIPE_KEY=local-stripe-value-123\n",
			".env.example": "STRIPE_KEY=your-stripe-key-here\n",
		});
		vi.spyOn(process, "cwd").mockReturnValue(at);
		const out = await sent("s3ss10n-s3cr3t-v4lue local-stripe-value-123 your-stripe-key-here", { envFiles: true });
		expect(out).toBe("[REDACTED:session-secret#1] [REDACTED:stripe-key#1] your-stripe-key-here");
	});

	it("should send nothing, and say why, when a listed file cannot be read", async () => {
		const registry = createDefaultRegistry().use(redactSecrets({ envFiles: ["/no/such/dir/.env"] }));
		const { output, problems } = await registry.runAsync([user("hello")]);
		expect(output).toEqual([]);
		expect(problems.map((p) => [p.plugin, p.message])).toEqual([
			[REDACT_SECRETS_PLUGIN, expect.stringContaining("the known secrets could not be read")],
		]);
	});

	it("should read .env lines as dotenv does", () => {
		expect(
			parseEnvFile(
				[
					"# comment",
					"A=1",
					"export B = two words # note",
					"C='single # kept'",
					'D="multi',
					'line" ',
					'E="esc\\napes"',
					"not a line",
				].join("\n"),
			),
		).toEqual([
			["A", "1"],
			["B", "two words"],
			["C", "single # kept"],
			["D", "multi\nline"],
			["E", "esc\napes"],
		]);
	});
});
