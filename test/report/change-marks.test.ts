/**
 * The marker on each model message a post-conversion hook changed, naming the hooks in the order
 * they ran: exact when the report observed the taps (the CLI), from `explain`'s own account of each
 * tap otherwise (`/llm-context`, whose shared registry is not tapped).
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { blockImages } from "../../src/hooks/block-images.js";
import { createDefaultRegistry } from "../../src/preset.js";
import type { Plugin, Registry } from "../../src/registry/types.js";
import { changeMarks } from "../../src/report/change-marks.js";
import { reportData } from "../../src/report/report-data.js";
import { observeTaps, withoutSnapshots } from "../../src/report/tap-snapshots.js";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const history: AgentMessage[] = [
	{ role: "user", content: "first", timestamp: 1 },
	{ role: "user", content: [{ type: "image", mimeType: "image/png", data: PNG }], timestamp: 2 },
	{ role: "user", content: "shout this", timestamp: 3 },
	{ role: "user", content: "last", timestamp: 4 },
];

/** An `afterConvert` tap that rewrites user text containing `word` (same length: compared by position). */
const rewrite = (name: string, word: string, change: (text: string) => string): Plugin => ({
	name,
	apply(registry) {
		registry.hooks.afterConvert.tap(name, (messages: Message[]) =>
			messages.map((m) =>
				m.role === "user" && typeof m.content === "string" && m.content.includes(word)
					? { ...m, content: change(m.content) }
					: m,
			),
		);
	},
});
const shout = rewrite("shout", "shout", (text) => text.toUpperCase());
const whisper = rewrite("whisper", "SHOUT", (text) => `${text.toLowerCase()}…`);

/** An `afterConvertAsync` tap that drops the first message (length changes: compared by identity). */
const dropFirst: Plugin = {
	name: "drop-first",
	apply(registry) {
		registry.hooks.afterConvertAsync.tapPromise("drop-first", async (messages: Message[]) => messages.slice(1));
	},
};

async function marks(setup: (registry: Registry) => void, observe: boolean) {
	const registry = createDefaultRegistry();
	setup(registry);
	const snapshots = observe ? observeTaps(registry) : undefined;
	const explanation = await registry.explainAsync(history);
	return {
		marks: changeMarks(explanation, withoutSnapshots(explanation.taps), snapshots),
		data: reportData({ title: "t", facts: [], messages: history, explanation, snapshots }),
	};
}

describe("changeMarks", () => {
	it.each([true, false])(
		"should name each hook that changed a message, in order (taps observed: %s)",
		async (observe) => {
			const { marks: found } = await marks(
				(r) =>
					r
						.use(blockImages({ enabled: true }))
						.use(shout)
						.use(whisper),
				observe,
			);
			expect(found).toEqual([undefined, ["convert-to-llm:block-images"], ["shout", "whisper"], undefined]);
		},
	);

	it("should keep every mark across a hook that removed messages when the taps were observed", async () => {
		const { marks: found, data } = await marks(
			(r) =>
				r
					.use(blockImages({ enabled: true }))
					.use(shout)
					.use(dropFirst),
			true,
		);
		expect(found).toEqual([["convert-to-llm:block-images"], ["shout"], undefined]);
		expect(data.output.map((item) => item.changedBy)).toEqual([
			["convert-to-llm:block-images"],
			["shout"],
			undefined,
		]);
	});

	it("should mark what it can tell from explain alone: a hook's own additions, and nothing it cannot place", async () => {
		const { marks: found } = await marks((r) => r.use(blockImages({ enabled: true })).use(dropFirst), false);
		expect(found).toHaveLength(3);
		// Which message drop-first removed explain does not say: the earlier marks end there.
		expect(found.every((mark) => mark === undefined)).toBe(true);
	});
});
