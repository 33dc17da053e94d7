/**
 * A realistic pi history for benchmarks: a coding session of `size` messages with large tool and
 * bash outputs, some images, custom messages, summaries and excluded (`!!`) bash runs.
 * Deterministic (seeded), so every run measures the same input.
 */
export function createHistory(size = 10_000, seed = 42) {
	let state = seed >>> 0;
	const random = () => {
		state = (state * 1664525 + 1013904223) >>> 0;
		return state / 2 ** 32;
	};
	const output = (lines) => Array.from({ length: lines }, (_, i) => `line ${i}: ${"x".repeat(60)}`).join("\n");
	const bigOutput = output(200);
	const smallOutput = output(5);
	const image = { type: "image", data: "iVBORw0KGgo".repeat(400), mimeType: "image/png" };
	const usage = {
		input: 10,
		output: 20,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 30,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
	const history = [];
	for (let i = 0; history.length < size; i++) {
		const t = 1_700_000_000_000 + i * 1000;
		const r = random();
		if (r < 0.12) {
			const content = random() < 0.1 ? [{ type: "text", text: `Look at this ${i}` }, image] : `Please fix bug ${i}`;
			history.push({ role: "user", content, timestamp: t });
		} else if (r < 0.72) {
			// A tool step: the call and its result, paired as pi-ai expects them.
			history.push({
				role: "assistant",
				content: [
					{ type: "text", text: `Running a tool for step ${i}` },
					{ type: "toolCall", id: `call_${i}`, name: "bash", arguments: { command: `cat file${i}.ts` } },
				],
				api: "faux",
				provider: "faux",
				model: "faux-1",
				usage,
				stopReason: "toolUse",
				timestamp: t,
			});
			const content =
				random() < 0.1
					? [{ type: "text", text: "Screenshot:" }, image]
					: [{ type: "text", text: random() < 0.5 ? bigOutput : smallOutput }];
			history.push({
				role: "toolResult",
				toolCallId: `call_${i}`,
				toolName: "bash",
				content,
				isError: false,
				timestamp: t,
			});
		} else if (r < 0.9) {
			history.push({
				role: "bashExecution",
				command: `npm test -- --grep "case ${i}"`,
				output: random() < 0.5 ? bigOutput : random() < 0.5 ? smallOutput : "",
				exitCode: random() < 0.8 ? 0 : 1,
				cancelled: random() < 0.05,
				truncated: random() < 0.1,
				fullOutputPath: random() < 0.1 ? `/tmp/pi-bash-${i}.log` : undefined,
				timestamp: t,
				excludeFromContext: random() < 0.15,
			});
		} else if (r < 0.97) {
			const content =
				random() < 0.2 ? [{ type: "text", text: `Extension note ${i}` }, image] : `Extension note ${i}`;
			history.push({
				role: "custom",
				customType: random() < 0.5 ? "todo" : "notify",
				content,
				display: true,
				timestamp: t,
			});
		} else if (r < 0.985) {
			history.push({
				role: "branchSummary",
				summary: `Tried approach ${i}; it failed.`,
				fromId: `id${i}`,
				timestamp: t,
			});
		} else {
			history.push({
				role: "compactionSummary",
				summary: `Summary of work up to ${i}.`,
				tokensBefore: 50_000,
				timestamp: t,
			});
		}
	}
	history.length = size;
	return history;
}
