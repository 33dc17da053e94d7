/**
 * The generated converter loop, as a reviewer reads it: the source compiled for the default preset,
 * which touches only its arguments (`input`, `port`) and what it is given by name; the port's
 * member names are checked against the port's interface by the type checker.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { createDefaultRegistry } from "../src/preset.js";
import { codeGenerationRefused } from "../src/registry/interpreted-hooks.js";
import { type LoopPort, PORT } from "../src/registry/port.js";
import type { RegistryOptions } from "../src/registry/types.js";
import { user } from "./support/fixtures.js";

const compiledSources = (options: RegistryOptions = {}): (string | undefined)[] => {
	const sources: (string | undefined)[] = [];
	const registry = createDefaultRegistry({
		...options,
		onCompile: (source: string | undefined) => sources.push(source),
	} as RegistryOptions);
	registry.convert([user("hi")]);
	return sources;
};

/** Where code generation is refused (`--disallow-code-generation-from-strings`), no loop is generated at all. */
const generates = !codeGenerationRefused();

describe("the generated converter loop", () => {
	it("should generate a loop where the host allows it, none where it refuses, and convert either way", () => {
		expect(compiledSources().length).toBe(generates ? 1 : 0);
		expect(createDefaultRegistry().convert([user("hi")])).toEqual([user("hi")]);
	});

	it("should name every member of the port, and only those", () => {
		expectTypeOf<keyof typeof PORT>().toEqualTypeOf<keyof LoopPort>();
		for (const [key, value] of Object.entries(PORT)) expect(value).toBe(key);
	});

	it.runIf(generates)("should reach the run only through the port's members", () => {
		const [source] = compiledSources();
		const used = new Set([...(source ?? "").matchAll(/\bport\.(\w+)/g)].map((match) => match[1]));
		expect([...used].every((member) => member !== undefined && member in PORT)).toBe(true);
		expect(source).not.toMatch(/\brun\b/);
	});

	it.runIf(generates)("should generate this loop for the default preset", () => {
		const sources = compiledSources();
		expect(sources).toHaveLength(1);
		expect(sources[0]).toMatchInlineSnapshot(`
			""use strict";
			const L0 = entries[0].list, F0 = L0.fns[0];
			const L1 = entries[1].list, F1 = L1.fns[0];
			const L2 = entries[2].list, F2 = L2.fns[0];
			const L3 = entries[3].list, F3 = L3.fns[0];
			const L4 = entries[4].list, F4 = L4.fns[0];
			const L5 = entries[5].list, F5 = L5.fns[0];
			const L6 = entries[6].list, F6 = L6.fns[0];
			const L7 = entries[7].list, F7 = L7.fns[0];
			return function convertMessages(input, port) {
				const length = input.length;
				const out = length <= 1048576 ? new Array(length) : [];
				const spill = [];
				let n = 0;
				const view = port.view;
				for (let i = 0; i < length; i++) {
					const message = input[i];
					try {
						const role = message === null || typeof message !== "object" ? undefined : message.role;
						if (typeof role !== "string") {
							i = port.invalid(input, i, message);
							continue;
						}
						switch (role) {
							case "user": case "assistant": case "toolResult": case "system": out[n++] = message; continue;
							case "bashExecution": {if (message.excludeFromContext) continue;
								port.at(i);
								let result;
								try {
									result = F4(message, view);
								} catch (cause) {
									threw(L4, 0, message, i, port, cause);
									continue;
								}
								if (result !== null && typeof result === "object" && result !== message) {
									let to;
									try {
										to = result.role;
									} catch {
										to = undefined;
									}
									if (to === "user" || to === "assistant" || to === "toolResult" || to === "system") {
										out[n++] = result;
										continue;
									}
								}
								const judged = judge(L4, 0, message, i, port, result);
								if (judged === FAILED) continue;
								if (judged === undefined) port.unhandled(i, "bashExecution", customTypeOf(message), L4.names);
								else { const from = spill.length; port.take(judged, i, L4.names[0], spill); for (let s = from; s < spill.length; s++) out[n++] = spill[s]; if (spill.length > 64) spill.length = 0; }
								continue;
							}
							case "custom": {
								port.at(i);
								let result;
								try {
									result = F5(message, view);
								} catch (cause) {
									threw(L5, 0, message, i, port, cause);
									continue;
								}
								if (result !== null && typeof result === "object" && result !== message) {
									let to;
									try {
										to = result.role;
									} catch {
										to = undefined;
									}
									if (to === "user" || to === "assistant" || to === "toolResult" || to === "system") {
										out[n++] = result;
										continue;
									}
								}
								const judged = judge(L5, 0, message, i, port, result);
								if (judged === FAILED) continue;
								if (judged === undefined) port.unhandled(i, "custom", customTypeOf(message), L5.names);
								else { const from = spill.length; port.take(judged, i, L5.names[0], spill); for (let s = from; s < spill.length; s++) out[n++] = spill[s]; if (spill.length > 64) spill.length = 0; }
								continue;
							}
							case "branchSummary": {
								port.at(i);
								let result;
								try {
									result = F6(message, view);
								} catch (cause) {
									threw(L6, 0, message, i, port, cause);
									continue;
								}
								if (result !== null && typeof result === "object" && result !== message) {
									let to;
									try {
										to = result.role;
									} catch {
										to = undefined;
									}
									if (to === "user" || to === "assistant" || to === "toolResult" || to === "system") {
										out[n++] = result;
										continue;
									}
								}
								const judged = judge(L6, 0, message, i, port, result);
								if (judged === FAILED) continue;
								if (judged === undefined) port.unhandled(i, "branchSummary", customTypeOf(message), L6.names);
								else { const from = spill.length; port.take(judged, i, L6.names[0], spill); for (let s = from; s < spill.length; s++) out[n++] = spill[s]; if (spill.length > 64) spill.length = 0; }
								continue;
							}
							case "compactionSummary": {
								port.at(i);
								let result;
								try {
									result = F7(message, view);
								} catch (cause) {
									threw(L7, 0, message, i, port, cause);
									continue;
								}
								if (result !== null && typeof result === "object" && result !== message) {
									let to;
									try {
										to = result.role;
									} catch {
										to = undefined;
									}
									if (to === "user" || to === "assistant" || to === "toolResult" || to === "system") {
										out[n++] = result;
										continue;
									}
								}
								const judged = judge(L7, 0, message, i, port, result);
								if (judged === FAILED) continue;
								if (judged === undefined) port.unhandled(i, "compactionSummary", customTypeOf(message), L7.names);
								else { const from = spill.length; port.take(judged, i, L7.names[0], spill); for (let s = from; s < spill.length; s++) out[n++] = spill[s]; if (spill.length > 64) spill.length = 0; }
								continue;
							}
							default: {
								const entry = rest.size === 0 ? undefined : rest.get(role);
								if (entry === undefined) port.unhandled(i, role, customTypeOf(message), NONE);
								else { const from = spill.length; step(entry, message, i, port, spill); for (let s = from; s < spill.length; s++) out[n++] = spill[s]; if (spill.length > 64) spill.length = 0; }
							}
						}
					} catch (cause) {
						port.failed(i, message, cause);
					}
				}
				out.length = n;
				return out;
			};"
		`);
	});

	it("should append what a converter returns beside the messages it writes itself, in order and with no hole", () => {
		const registry = createDefaultRegistry();
		// Roles no declaration merging declares: their converters read the field each test message has.
		const text = (message: unknown) => (message as { text: string }).text;
		registry.register("pair" as "user", (message) => [user(`${text(message)} 1`), user(`${text(message)} 2`)], {
			name: "pair",
		});
		for (let i = 0; i < 20; i++) registry.register(`unused${i}` as "user", () => null, { name: `unused-${i}` });
		registry.register("late" as "user", (message) => [user(`${text(message)} late`)], { name: "late" });
		const input = [user("a"), { role: "pair", text: "b" }, user("c"), { role: "late", text: "d" }, user("e")];
		const output = registry.convert(input as never);
		expect(output.map((message) => message.content)).toEqual(["a", "b 1", "b 2", "c", "d late", "e"]);
		expect(Object.keys(output)).toHaveLength(output.length);
		// Many of them, in a row and between pass-through messages: the same order, nothing lost.
		const many = Array.from({ length: 150 }, (_, k) =>
			k % 3 === 0 ? user(`u${k}`) : { role: "pair", text: `p${k}` },
		);
		const expected = many.flatMap((message) =>
			message.role === "pair"
				? [`${text(message)} 1`, `${text(message)} 2`]
				: [(message as { content: string }).content],
		);
		const converted = registry.convert(many as never);
		expect(converted.map((message) => message.content)).toEqual(expected);
		expect(Object.keys(converted)).toHaveLength(expected.length);
	});
});
