/**
 * The generated blocks of README.md and docs/*.md: what scripts/docs-generated.mjs writes between
 * `<!-- generated: <source> -->` and `<!-- /generated -->`. The CLI's output is what it prints now; the
 * benchmark and parity figures, which come from slow runs, are in the script's format. The code
 * blocks are test/docs/code-blocks.test.ts's.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
	docFiles,
	generatedBlocks,
	renderBench,
	renderCli,
	renderGates,
	renderParity,
	renderSessions,
} from "../../scripts/docs-generated.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The cells of a markdown table's body rows (after the header and its separator), trimmed. */
const tableRows = (text: string): string[][] =>
	text
		.split("\n")
		.filter((line) => line.startsWith("| "))
		.slice(2)
		.map((line) =>
			line
				.slice(2, -2)
				.split(" | ")
				.map((cell) => cell.trim()),
		);

describe("the generated blocks of README.md and docs/*.md", () => {
	const generated = docFiles().flatMap((file) =>
		generatedBlocks(readFileSync(join(ROOT, file), "utf8")).map((block) => ({ file, ...block })),
	);

	it("should print each convert-to-llm block exactly as the CLI prints it now", () => {
		const cli = generated.filter((block) => block.source.startsWith("convert-to-llm "));
		expect(cli.length).toBeGreaterThan(0);
		for (const block of cli) {
			expect(block.body, `${block.file}: ${block.source} (node scripts/docs-generated.mjs rewrites it)`).toBe(
				renderCli(block.source.slice("convert-to-llm ".length)),
			);
		}
	});

	it("should hold the README's performance figures (the gates, the session reader) as scripts/docs-generated.mjs writes them", () => {
		const only = (source: string) => generated.filter((block) => block.source === source);
		const gates = only("npm run bench: gates");
		const sessions = only("npm run bench: sessions");
		expect(gates.map((block) => block.file)).toEqual(["README.md"]);
		expect(sessions.map((block) => block.file)).toContain("README.md");
		// As for the full table: bench lines rebuilt from the rows render back to the block.
		const gatesBody = gates[0]?.body ?? "";
		const footer = /^`npm run bench`, (\d{4}-\d{2}-\d{2}); (history: .*)\.$/m.exec(gatesBody);
		expect(footer, gatesBody).not.toBeNull();
		const gateLines = tableRows(gatesBody).map(
			([title, target, ratio, verdict]) =>
				`${title} ${ratio?.replaceAll("*", "")} (limit ${target?.split(" ")[1]}: ${verdict === "over" ? "OVER" : "ok"})  [1]  1 ms vs 1 ms per call`,
		);
		expect(gateLines.length).toBeGreaterThan(0);
		expect(renderGates([footer?.[2], ...gateLines].join("\n"), footer?.[1] ?? "")).toBe(gatesBody);
		const sessionsBody = sessions[0]?.body ?? "";
		for (const block of sessions) expect(block.body, block.file).toBe(sessionsBody);
		const growth =
			/^Ours on 4× the input \(([^)]*)\): ×(\S+) the time \(≤ ×([\d.]+)(, over)?\)\. `npm run bench`, (\d{4}-\d{2}-\d{2}); (.*)\.$/m.exec(
				sessionsBody,
			);
		expect(growth, sessionsBody).not.toBeNull();
		const figure = (cell = "") => {
			const untargeted = /^(\S+)× \(no target\)$/.exec(cell);
			if (untargeted !== null) return `${untargeted[1]}× (no target: two runtimes`;
			const [, ratio, limit, over] = /^\*\*(\S+)×\*\* \(≤ (\S+?)(, over)?\)$/.exec(cell) ?? [];
			return `${ratio}× (${over === undefined ? "ok" : "OVER"} ≤ ${limit}`;
		};
		const sessionLines = tableRows(sessionsBody).map(([session, against, node, time, times, memory, mibs]) => {
			const [ours, pi] = (times ?? "").split(" vs ");
			const [oursMib, piMib] = (mibs ?? "").split(" vs ");
			return `  ${session} vs ${against}, ours on ${node}: time ${figure(time)}; ours ${ours}, pi ${pi}), peak memory ${figure(memory)}; ours ${oursMib}, pi ${piMib})`;
		});
		expect(sessionLines.length).toBeGreaterThan(0);
		const [, scope, times, limit, over, date, header] = growth ?? [];
		const log = [
			`session bench: ${header}`,
			...sessionLines,
			`  ours, ×4 input (${scope}): ×${times} time (${over === undefined ? "ok" : "OVER"} ≤ ${limit})`,
		];
		expect(renderSessions(log.join("\n"), date ?? "")).toBe(sessionsBody);
	});

	it("should hold the benchmark table and the parity counts in the form scripts/docs-generated.mjs writes", () => {
		const bench = generated.filter((block) => block.source === "npm run bench");
		const parity = generated.filter((block) => block.source === "parity");
		expect(bench.length).toBe(1);
		expect(parity.length).toBe(1);
		// The figures come from slow runs; what is checked here is that the block is the script's
		// rendering of such a run: rendering the rows back gives the block itself.
		const benchBody = bench[0]?.body ?? "";
		const footer = /^`npm run bench`, (\d{4}-\d{2}-\d{2}); (history: .*)\.$/m.exec(benchBody);
		expect(footer, benchBody).not.toBeNull();
		const benchLines = tableRows(benchBody).map(([title, gate, ratio, spread, ms]) => {
			const limit =
				gate === "figure" ? "" : ` (limit ${gate?.split(" ")[1]}: ${gate?.includes("over") ? "OVER" : "ok"})`;
			return `${title} ${ratio?.replaceAll("*", "")}${limit}  [${spread}]  ${ms} per call`;
		});
		expect(benchLines.length).toBeGreaterThan(0);
		expect(renderBench([footer?.[2], ...benchLines].join("\n"), footer?.[1] ?? "")).toBe(benchBody);
		const parityBody = parity[0]?.body ?? "";
		const rows = tableRows(parityBody).map(([suite, text]) => ["", suite?.replaceAll("`", ""), text]);
		const tags: Record<string, string> = {
			"test/differential/differential.test.ts": "differential",
			"test/differential/pi1-differential.test.ts": "pi1 differential",
			"test/differential/session-differential.test.ts": "session differential",
			"test/differential/pi1-session-differential.test.ts": "pi1 session differential",
		};
		const log = rows.map(
			([, suite, text]) =>
				`[${tags[suite as string]}] ${(text as string).replace(/(\d),(?=\d{3}\b)/g, "$1").replaceAll("\\|", "|")}`,
		);
		expect(renderParity(log.join("\n"))).toBe(parityBody);
		// Every differential in the block found nothing.
		expect(
			rows.every(([, , text]) => / 0 (mismatches|differ)$| 0 sessions and 0 readings differ$/.test(text as string)),
		).toBe(true);
	});
});
