/**
 * The public types: a converter for role `R` receives exactly that message type and must return
 * pi-ai messages; `customType` is for role `custom` only; undeclared roles fail; `registry.convert`
 * fits pi-agent-core's `convertToLlm`; a plugin needs a name.
 */
import {
	Agent,
	type AgentLoopConfig,
	type AgentMessage,
	type AgentOptions,
	type StreamFn,
} from "@earendil-works/pi-agent-core";
import type { Message, UserMessage } from "@earendil-works/pi-ai";
import type { AsyncSeriesWaterfallHook, SyncHook, SyncWaterfallHook } from "tapable";
import { describe, expectTypeOf, it } from "vitest";
import type {
	AgentRole,
	BashExecutionMessage,
	BranchSummaryMessage,
	CompactionSummaryMessage,
	ConvertContext,
	Converter,
	ConverterInfo,
	ConverterResult,
	ConvertToLlmError,
	CustomMessage,
	CustomRegisterOptions,
	ErrorCode,
	ExcludeOptions,
	HookContext,
	MessageOfRole,
	Plugin,
	RegisterOptions,
	RegisterOptionsFor,
	Registry,
} from "../src/index.js";
import { createRegistry } from "../src/index.js";
import { convertToLlm, createDefaultRegistry } from "../src/preset.js";

declare const registry: Registry;
/** pi-agent-core requires a `streamFn` since pi 0.82. */
declare const streamFn: StreamFn;
const reply = (text: string): UserMessage => ({ role: "user", content: text, timestamp: 0 });

describe("AgentRole and MessageOfRole", () => {
	it("should include pi-ai's roles and the four app roles", () => {
		expectTypeOf<"user" | "assistant" | "toolResult">().toExtend<AgentRole>();
		expectTypeOf<"bashExecution" | "custom" | "branchSummary" | "compactionSummary">().toExtend<AgentRole>();
		expectTypeOf<"neverDeclaredRole">().not.toExtend<AgentRole>();
	});

	it("should map each role to its message type", () => {
		expectTypeOf<MessageOfRole<"bashExecution">>().toEqualTypeOf<BashExecutionMessage>();
		expectTypeOf<MessageOfRole<"custom">>().toEqualTypeOf<CustomMessage>();
		expectTypeOf<MessageOfRole<"branchSummary">>().toEqualTypeOf<BranchSummaryMessage>();
		expectTypeOf<MessageOfRole<"compactionSummary">>().toEqualTypeOf<CompactionSummaryMessage>();
		expectTypeOf<MessageOfRole<"user">>().toEqualTypeOf<UserMessage>();
	});

	it("should make the app roles part of AgentMessage (the augmentation of CustomAgentMessages)", () => {
		expectTypeOf<BashExecutionMessage>().toExtend<AgentMessage>();
		expectTypeOf<CustomMessage>().toExtend<AgentMessage>();
		expectTypeOf<BranchSummaryMessage>().toExtend<AgentMessage>();
		expectTypeOf<CompactionSummaryMessage>().toExtend<AgentMessage>();
	});
});

describe("registry.register", () => {
	it("should give the converter of bashExecution a BashExecutionMessage, and a ConvertContext", () => {
		registry.register(
			"bashExecution",
			(m, ctx) => {
				expectTypeOf(m).toEqualTypeOf<BashExecutionMessage>();
				expectTypeOf(ctx).toEqualTypeOf<ConvertContext>();
				expectTypeOf(ctx.index).toEqualTypeOf<number>();
				return reply(m.command);
			},
			{ name: "bash" },
		);
	});

	it("should give each role's converter exactly its message type", () => {
		registry
			.register(
				"custom",
				(m) => {
					expectTypeOf(m).toEqualTypeOf<CustomMessage>();
					return null;
				},
				{ name: "custom" },
			)
			.register(
				"branchSummary",
				(m) => {
					expectTypeOf(m).toEqualTypeOf<BranchSummaryMessage>();
					return reply(m.summary);
				},
				{ name: "branch" },
			)
			.register(
				"user",
				(m) => {
					expectTypeOf(m).toEqualTypeOf<UserMessage>();
					return m;
				},
				{ name: "user" },
			);
	});

	it("should be chainable", () => {
		expectTypeOf(registry.register("user", (m) => m, { name: "u" })).toEqualTypeOf<Registry>();
		expectTypeOf(registry.use({ name: "p", apply() {} })).toEqualTypeOf<Registry>();
	});

	it("should accept every ConverterResult: a Message, a readonly list, null, undefined", () => {
		registry.register("bashExecution", () => reply("one"), { name: "a" });
		registry.register("bashExecution", () => [reply("one"), reply("two")] as const, { name: "b" });
		registry.register("bashExecution", () => null, { name: "c" });
		registry.register("bashExecution", () => undefined, { name: "d" });
		registry.register("bashExecution", () => [], { name: "e" });
		expectTypeOf<ConverterResult>().toEqualTypeOf<Message | readonly Message[] | null | undefined>();
	});

	it("should accept customType, stage and override for role custom", () => {
		registry.register("custom", (m) => reply(String(m.content)), {
			name: "todo",
			customType: "todo",
			stage: -100,
			override: true,
		});
		expectTypeOf<RegisterOptionsFor<"custom">>().toEqualTypeOf<CustomRegisterOptions>();
		expectTypeOf<RegisterOptionsFor<"bashExecution">>().toEqualTypeOf<RegisterOptions>();
	});

	it("should reject customType on any other role", () => {
		// @ts-expect-error: customType applies to role "custom" only
		registry.register("bashExecution", () => null, { name: "x", customType: "todo" });
		// @ts-expect-error: customType applies to role "custom" only
		registry.register("user", (m) => m, { name: "x", customType: "todo" });
	});

	it("should reject a role nobody declared", () => {
		// @ts-expect-error: "neverDeclaredRole" is not a key of CustomAgentMessages
		registry.register("neverDeclaredRole", () => null, { name: "x" });
		// @ts-expect-error: role names are case-sensitive
		registry.register("BashExecution", () => null, { name: "x" });
	});

	it("should reject a converter reading a field its role lacks", () => {
		// @ts-expect-error: a bash execution has no summary
		registry.register("bashExecution", (m) => reply(m.summary), { name: "x" });
		// @ts-expect-error: a custom message has no command
		registry.register("custom", (m) => reply(m.command), { name: "x" });
		// @ts-expect-error: a user message has no customType
		registry.register("user", (m) => reply(m.customType), { name: "x" });
	});

	it("should reject a converter returning an AgentMessage instead of a Message", () => {
		// @ts-expect-error: a BashExecutionMessage is not a pi-ai Message
		registry.register("bashExecution", (m) => m, { name: "x" });
		// @ts-expect-error: a CustomMessage is not a pi-ai Message
		registry.register("custom", (m) => [m], { name: "x" });
		// @ts-expect-error: an AgentMessage may be an app role
		registry.register("branchSummary", (_m, ctx) => ctx.messages[0] as AgentMessage, { name: "x" });
		// @ts-expect-error: a string is not a Message
		registry.register("compactionSummary", (m) => m.summary, { name: "x" });
		// @ts-expect-error: "developer" is not a pi-ai role
		registry.register("compactionSummary", (m) => ({ role: "developer", content: m.summary, timestamp: 0 }), {
			name: "x",
		});
	});

	it("should require a name", () => {
		// @ts-expect-error: options.name is required
		registry.register("user", (m) => m, {});
		// @ts-expect-error: options are required
		registry.register("user", (m) => m);
		// @ts-expect-error: the name is a string
		registry.register("user", (m) => m, { name: 1 });
	});

	it("should type Converter<R> like the register callback", () => {
		const bash: Converter<"bashExecution"> = (m) => reply(m.output);
		registry.register("bashExecution", bash, { name: "bash" });
		expectTypeOf<Parameters<Converter<"custom">>[0]>().toEqualTypeOf<CustomMessage>();
		expectTypeOf<ReturnType<Converter<"custom">>>().toEqualTypeOf<ConverterResult>();
		// @ts-expect-error: a bash converter is not a custom converter
		registry.register("custom", bash, { name: "bash-as-custom" });
	});
});

describe("registry.convert", () => {
	it("should take an AgentMessage history and return Message[]", () => {
		expectTypeOf(registry.convert).parameters.toEqualTypeOf<[readonly AgentMessage[]]>();
		expectTypeOf(registry.convert).returns.toEqualTypeOf<Message[]>();
		expectTypeOf(registry.convertAsync).returns.toEqualTypeOf<Promise<Message[]>>();
		expectTypeOf(convertToLlm).returns.toEqualTypeOf<Message[]>();
	});

	it("should be assignable to pi-agent-core's convertToLlm", () => {
		expectTypeOf(registry.convert).toExtend<AgentLoopConfig["convertToLlm"]>();
		expectTypeOf(registry.convertAsync).toExtend<AgentLoopConfig["convertToLlm"]>();
		expectTypeOf(registry.convert).toExtend<NonNullable<AgentOptions["convertToLlm"]>>();
		expectTypeOf(convertToLlm).toExtend<AgentLoopConfig["convertToLlm"]>();

		const fromDefault = createDefaultRegistry();
		const agent = new Agent({ convertToLlm: fromDefault.convert, streamFn });
		new Agent({ convertToLlm: fromDefault.convertAsync, streamFn });
		new Agent({ convertToLlm: createRegistry({ strict: true }).convert, streamFn });
		expectTypeOf(agent.convertToLlm).toEqualTypeOf<AgentLoopConfig["convertToLlm"]>();
	});

	it("should accept a readonly history", () => {
		const history: readonly AgentMessage[] = [];
		expectTypeOf(registry.convert(history)).toEqualTypeOf<Message[]>();
	});

	it("should reject what is not an AgentMessage history", () => {
		// @ts-expect-error: a single message is not a history
		registry.convert(reply("hi"));
		// @ts-expect-error: an undeclared role is not an AgentMessage
		registry.convert([{ role: "neverDeclaredRole", timestamp: 0 }]);
	});
});

describe("Plugin", () => {
	it("should be { name, apply(registry) }", () => {
		const plugin: Plugin = {
			name: "ok",
			apply(r) {
				expectTypeOf(r).toEqualTypeOf<Registry>();
			},
		};
		expectTypeOf(plugin.name).toEqualTypeOf<string>();
	});

	it("should reject a plugin without a name or without apply", () => {
		// @ts-expect-error: a plugin needs a name
		const nameless: Plugin = { apply() {} };
		// @ts-expect-error: a plugin needs apply
		const applyless: Plugin = { name: "x" };
		// @ts-expect-error: the name is a string
		registry.use({ name: undefined, apply() {} });
		expectTypeOf(nameless).toEqualTypeOf<Plugin>();
		expectTypeOf(applyless).toEqualTypeOf<Plugin>();
	});
});

describe("registry.hooks", () => {
	it("should type each hook's arguments", () => {
		// Waterfall taps may return undefined to keep the value.
		expectTypeOf(registry.hooks.beforeConvert).toEqualTypeOf<
			SyncWaterfallHook<[readonly AgentMessage[], HookContext], readonly AgentMessage[] | undefined>
		>();
		expectTypeOf(registry.hooks.afterConvert).toEqualTypeOf<
			SyncWaterfallHook<[Message[], HookContext], Message[] | undefined>
		>();
		expectTypeOf(registry.hooks.afterConvertAsync).toEqualTypeOf<
			AsyncSeriesWaterfallHook<[Message[], HookContext], Message[] | undefined>
		>();
		expectTypeOf(registry.hooks.error).toEqualTypeOf<SyncHook<[ConvertToLlmError]>>();
	});

	it("should give error taps a ConvertToLlmError with a stable code", () => {
		registry.hooks.error.tap("log", (error) => {
			expectTypeOf(error).toEqualTypeOf<ConvertToLlmError>();
			expectTypeOf(error.code).toEqualTypeOf<ErrorCode>();
			expectTypeOf(error.index).toEqualTypeOf<number | undefined>();
			expectTypeOf(error.plugin).toEqualTypeOf<string | undefined>();
			expectTypeOf(error.role).toEqualTypeOf<string | undefined>();
		});
	});

	it("should make post-conversion taps return Message[]", () => {
		registry.hooks.afterConvert.tap("ok", (messages) => messages.filter((m) => m.role !== "toolResult"));
		registry.hooks.afterConvertAsync.tapPromise("ok", async (messages) => messages);
		// @ts-expect-error: an afterConvert tap returns Message[], not AgentMessage[]
		registry.hooks.afterConvert.tap("bad", (_messages, ctx) => ctx.input as AgentMessage[]);
	});

	it("should let an observing waterfall tap return undefined, which keeps the value (as documented)", () => {
		registry.hooks.beforeConvert.tap("observe", () => undefined);
		registry.hooks.afterConvert.tap("observe", () => undefined);
		registry.hooks.afterConvertAsync.tapPromise("observe", async () => undefined);
	});

	it("should keep the ErrorCode type to the known codes", () => {
		expectTypeOf<"CONVERT_TO_LLM_UNKNOWN_ROLE">().toExtend<ErrorCode>();
		expectTypeOf<"SOMETHING_ELSE">().not.toExtend<ErrorCode>();
	});
});

describe("registry.exclude and registry.converters", () => {
	it("should exclude a declared role by name, and list converters read-only", () => {
		expectTypeOf(registry.exclude("custom", { name: "private-notes" })).toEqualTypeOf<Registry>();
		expectTypeOf<ExcludeOptions>().toEqualTypeOf<{ name: string }>();
		// @ts-expect-error: an exclusion needs a name
		registry.exclude("custom", {});
		// @ts-expect-error: only declared roles can be excluded
		registry.exclude("nobody", { name: "x" });
		expectTypeOf(registry.converters("bashExecution")).toEqualTypeOf<readonly ConverterInfo[]>();
		expectTypeOf<ConverterInfo["customType"]>().toEqualTypeOf<string | undefined>();
		// @ts-expect-error: the view is read-only
		registry.converters("custom")[0].name = "renamed";
	});

	it("should offer no converter hooks: register() is the API", () => {
		// @ts-expect-error: hooks.convert is gone
		registry.hooks.convert;
		// @ts-expect-error: hooks.convertCustom is gone
		registry.hooks.convertCustom;
	});

	it("should give converters a read-only context", () => {
		registry.register(
			"custom",
			(m, ctx) => {
				// @ts-expect-error: ctx.index is read-only
				ctx.index = 1;
				return m.display ? undefined : null;
			},
			{ name: "x" },
		);
	});
});
