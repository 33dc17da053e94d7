/**
 * The error family: one base class, a named subclass per problem with a stable `code`, structured
 * fields (`role`, `customType`, `index`, `plugin`, `cause`) and a message that says what to do next.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { UserMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import {
	AsyncHookInSyncConvertError,
	AsyncHookTimeoutError,
	ConversionError,
	ConvertToLlmError,
	createCustomMessage,
	createRegistry,
	DuplicateConverterError,
	ErrorCode,
	InvalidMessageError,
	InvalidPluginError,
	InvalidSessionError,
	LintError,
	modelRoles,
	type Plugin,
	PrefixBreakNotice,
	UnknownRoleError,
} from "../src/index.js";
import { thrownBy, user } from "./support/fixtures.js";

type ErrorClass = new (
	message: string,
	details?: ConstructorParameters<typeof ConversionError>[1],
) => ConvertToLlmError;

const classes: { name: string; Class: ErrorClass; code: string }[] = [
	{ name: "UnknownRoleError", Class: UnknownRoleError, code: "CONVERT_TO_LLM_UNKNOWN_ROLE" },
	{ name: "ConversionError", Class: ConversionError, code: "CONVERT_TO_LLM_CONVERSION_FAILED" },
	{ name: "InvalidMessageError", Class: InvalidMessageError, code: "CONVERT_TO_LLM_INVALID_MESSAGE" },
	{ name: "DuplicateConverterError", Class: DuplicateConverterError, code: "CONVERT_TO_LLM_DUPLICATE_CONVERTER" },
	{ name: "InvalidPluginError", Class: InvalidPluginError, code: "CONVERT_TO_LLM_INVALID_PLUGIN" },
	{
		name: "AsyncHookInSyncConvertError",
		Class: AsyncHookInSyncConvertError,
		code: "CONVERT_TO_LLM_ASYNC_HOOK_IN_SYNC_CONVERT",
	},
	{ name: "AsyncHookTimeoutError", Class: AsyncHookTimeoutError, code: "CONVERT_TO_LLM_ASYNC_HOOK_TIMEOUT" },
];

describe("ErrorCode", () => {
	it("should be frozen, with one stable, distinct code per error class", () => {
		expect(Object.isFrozen(ErrorCode)).toBe(true);
		expect(ErrorCode).toEqual({
			UNKNOWN_ROLE: "CONVERT_TO_LLM_UNKNOWN_ROLE",
			CONVERSION_FAILED: "CONVERT_TO_LLM_CONVERSION_FAILED",
			INVALID_MESSAGE: "CONVERT_TO_LLM_INVALID_MESSAGE",
			DUPLICATE_CONVERTER: "CONVERT_TO_LLM_DUPLICATE_CONVERTER",
			INVALID_PLUGIN: "CONVERT_TO_LLM_INVALID_PLUGIN",
			ASYNC_HOOK_IN_SYNC_CONVERT: "CONVERT_TO_LLM_ASYNC_HOOK_IN_SYNC_CONVERT",
			ASYNC_HOOK_TIMEOUT: "CONVERT_TO_LLM_ASYNC_HOOK_TIMEOUT",
			LINT: "CONVERT_TO_LLM_LINT",
			INVALID_SESSION: "CONVERT_TO_LLM_INVALID_SESSION",
			PREFIX_BREAK: "CONVERT_TO_LLM_PREFIX_BREAK",
		});
		// The classes with extra fields (tested with the lint, the session reader and the prefix) have codes too.
		const lint = new LintError("lint [empty-content]", { rule: "empty-content", outputIndex: 0 });
		const session = new InvalidSessionError("no header", { line: 1 });
		const notice = new PrefixBreakNotice("breaks at 0", { kept: 0, breakAt: 0, cause: "history" });
		const codes = [...classes.map((c) => c.code), lint.code, session.code, notice.code];
		expect(new Set(Object.values(ErrorCode)).size).toBe(codes.length);
		expect(codes.sort()).toEqual(Object.values(ErrorCode).sort());
		expect(lint).toBeInstanceOf(ConvertToLlmError);
		expect(session).toBeInstanceOf(ConvertToLlmError);
		expect(notice).toBeInstanceOf(ConvertToLlmError);
	});
});

describe("ConvertToLlmError", () => {
	it("should be an Error with the given code, message and details", () => {
		const cause = new Error("root");
		const error = new ConvertToLlmError(ErrorCode.CONVERSION_FAILED, "it broke", {
			role: "custom",
			customType: "todo",
			index: 3,
			plugin: "todo-ext",
			cause,
		});

		expect(error).toBeInstanceOf(Error);
		expect(error).toMatchObject({
			name: "ConvertToLlmError",
			code: ErrorCode.CONVERSION_FAILED,
			message: "it broke",
			role: "custom",
			customType: "todo",
			index: 3,
			plugin: "todo-ext",
		});
		expect(error.cause).toBe(cause);
		expect(error.stack).toContain("it broke");
	});
});

describe.each(classes)("$name", ({ name, Class, code }) => {
	it("should have its name, its stable code and the base class", () => {
		const error = new Class("what happened; what to do");

		expect(error).toBeInstanceOf(Class);
		expect(error).toBeInstanceOf(ConvertToLlmError);
		expect(error).toBeInstanceOf(Error);
		expect(error.name).toBe(name);
		expect(error.code).toBe(code);
		expect(error.message).toBe("what happened; what to do");
		expect(String(error)).toBe(`${name}: what happened; what to do`);
	});

	it("should carry role, customType, index, plugin and cause when given", () => {
		const cause = { reason: "not an Error" };
		const error = new Class("m", { role: "custom", customType: "todo", index: 0, plugin: "p", cause });

		expect(error).toMatchObject({ role: "custom", customType: "todo", index: 0, plugin: "p" });
		expect(error.cause).toBe(cause);
	});

	it("should leave the fields undefined, and set no cause, when not given", () => {
		const error = new Class("m");

		expect(error.role).toBeUndefined();
		expect(error.customType).toBeUndefined();
		expect(error.index).toBeUndefined();
		expect(error.plugin).toBeUndefined();
		expect("cause" in error).toBe(false);
	});

	it("should not be an instance of the other error classes", () => {
		const error = new Class("m");

		for (const other of classes) if (other.Class !== Class) expect(error).not.toBeInstanceOf(other.Class);
	});
});

describe("error messages", () => {
	/** Each problem as the registry reports it, the fields it must carry and the advice it must give. */
	const scenarios: {
		problem: string;
		run: () => unknown;
		Class: ErrorClass;
		fields: Record<string, unknown>;
		says: RegExp[];
	}[] = [
		{
			problem: "an unknown role",
			run: () => createRegistry({ strict: true }).convert([{ role: "notification" } as unknown as AgentMessage]),
			Class: UnknownRoleError,
			fields: { role: "notification", index: 0 },
			says: [/"notification"/, /message 0/, /dropped/, /registry\.register\("notification"/],
		},
		{
			problem: "an unknown customType",
			run: () =>
				createRegistry({ strict: true })
					.register("custom", () => null, { name: "todo-ext", customType: "todo" })
					.convert([createCustomMessage("notes", "x", true, undefined, 0)]),
			Class: UnknownRoleError,
			fields: { role: "custom", customType: "notes", index: 0 },
			says: [/customType "notes"/, /register/],
		},
		{
			problem: "a malformed entry",
			run: () =>
				createRegistry({ strict: true })
					.use(modelRoles)
					.convert([user("a"), 42 as unknown as AgentMessage]),
			Class: InvalidMessageError,
			fields: { index: 1 },
			says: [/Message 1/, /number 42/, /string role/, /remove it|fix/],
		},
		{
			problem: "a history that is not an array",
			run: () => createRegistry({ strict: true }).convert("history" as unknown as AgentMessage[]),
			Class: InvalidMessageError,
			fields: { index: undefined },
			says: [/array/, /string/, /Pass/],
		},
		{
			problem: "a converter that throws",
			run: () =>
				createRegistry({ strict: true })
					.register(
						"custom",
						() => {
							throw new Error("disk on fire");
						},
						{ name: "burning-ext" },
					)
					.convert([createCustomMessage("todo", "x", true, undefined, 0)]),
			Class: ConversionError,
			fields: { role: "custom", customType: "todo", index: 0, plugin: "burning-ext" },
			says: [/"burning-ext"/, /message 0/, /disk on fire/, /fix or remove the plugin/],
		},
		{
			problem: "a converter returning a non-Message",
			run: () =>
				createRegistry({ strict: true })
					.register("custom", (m) => m as unknown as UserMessage, { name: "lazy-ext" })
					.convert([createCustomMessage("todo", "x", true, undefined, 0)]),
			Class: ConversionError,
			fields: { role: "custom", index: 0, plugin: "lazy-ext" },
			says: [/"lazy-ext"/, /not a pi-ai Message/, /user, assistant or toolResult/],
		},
		{
			problem: "a duplicate converter",
			run: () =>
				createRegistry()
					.register("custom", () => null, { name: "first-ext" })
					.register("custom", () => null, { name: "second-ext" }),
			Class: DuplicateConverterError,
			fields: { plugin: "second-ext" },
			says: [/"first-ext"/, /"second-ext"/, /override: true/],
		},
		{
			problem: "a nameless plugin",
			run: () => createRegistry().use({ apply() {} } as unknown as Plugin),
			Class: InvalidPluginError,
			fields: {},
			says: [/without a name/, /name: "my-plugin"/],
		},
		{
			problem: "a converter registered without a name",
			run: () => createRegistry().register("custom", () => null, {} as { name: string }),
			Class: InvalidPluginError,
			fields: { role: "custom" },
			says: [/options\.name/, /register\("custom"/],
		},
		{
			problem: "a customType on another role",
			run: () => createRegistry().register("user", () => null, { name: "p", customType: "x" } as { name: string }),
			Class: InvalidPluginError,
			fields: { role: "user", plugin: "p" },
			says: [/customType/, /"custom" only/],
		},
		{
			problem: "a sync convert with afterConvertAsync taps",
			run: () => {
				const registry = createRegistry();
				registry.hooks.afterConvertAsync.tapPromise("async-redactor", async (m) => m);
				return registry.convert([]);
			},
			Class: AsyncHookInSyncConvertError,
			fields: { plugin: "async-redactor" },
			says: [/"async-redactor"/, /convertAsync/, /leak/],
		},
	];

	it.each(scenarios)("should name the culprit and say what to do for $problem", ({ run, Class, fields, says }) => {
		const error = thrownBy(run);

		expect(error).toBeInstanceOf(Class);
		expect(error).toMatchObject(fields);
		for (const pattern of says) expect((error as Error).message).toMatch(pattern);
	});

	it("should keep the original error as cause when wrapping a converter's throw", () => {
		const cause = new TypeError("x is undefined");
		const error = thrownBy(() =>
			createRegistry({ strict: true })
				.register(
					"custom",
					() => {
						throw cause;
					},
					{ name: "p" },
				)
				.convert([createCustomMessage("t", "x", true, undefined, 0)]),
		);

		expect((error as Error).cause).toBe(cause);
	});

	it("should report a factory's invalid timestamp as an InvalidMessageError that shows the value and the fix", () => {
		const error = thrownBy(() => createCustomMessage("t", "x", true, undefined, "yesterday"));

		expect(error).toBeInstanceOf(InvalidMessageError);
		expect(error).toMatchObject({ role: "custom", code: ErrorCode.INVALID_MESSAGE });
		expect((error as Error).message).toContain('"yesterday"');
		expect((error as Error).message).toContain("ISO 8601");
	});
});
